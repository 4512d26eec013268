//! lbm's CPU reference: the kernels' steps on the host in f64, with the
//! same conservation and decay checks as the GPU's.

use super::{Params, Setup, model, step};
use crate::app::{CpuKernel, Model, Validation};
use crate::precision::Precision;

/// The same steps on the CPU in f64.
pub(super) struct LbmCpu {
    setup: Setup,
    f: Vec<f64>,
    checked: Option<Vec<f64>>,
}

impl LbmCpu {
    /// The reference of `params`, from its start.
    pub(super) fn new(params: &Params) -> LbmCpu {
        let setup = Setup::new(params, Precision::F64);
        LbmCpu {
            f: setup.start.f0.clone(),
            setup,
            checked: None,
        }
    }
}

impl CpuKernel for LbmCpu {
    fn run(&mut self) {
        let b = &self.setup.start.lattice;
        for _ in 0..self.setup.steps {
            self.f = step(self.setup.kernel, b, &self.f);
        }
        if self.checked.is_none() {
            self.checked = Some(self.f.clone());
        }
    }

    /// Conservation and (for a shear wave) decay of the first run; the
    /// element-wise comparison is with the same arithmetic, so it is exact.
    fn validate(&self) -> Validation {
        match &self.checked {
            Some(f) => self.setup.check(f, &self.setup.expected(), Precision::F64),
            None => Validation::fail("not run".into()),
        }
    }

    fn model(&self) -> Model {
        model(
            self.setup.kernel,
            self.setup.start.lattice.sites() as u64,
            self.setup.steps,
            Precision::F64,
        )
    }
}
