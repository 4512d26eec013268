//! The comd kernels on the CPU reference platform.

use std::collections::BTreeSet;

use super::form::pair_flops;
use super::md::{self, System};
use super::{Init, KernelName, Params, initial, model};
use crate::app::{CpuKernel, Model, Validation};
use crate::error::Result;
use crate::precision::Precision;

/// The same kernel on the CPU in f64, checked by physics: a kick or drift
/// keeps the total momentum, binning places every atom once, forces sum to
/// zero (and match CoMD's lattice energy from its initial state), and steps
/// conserve energy.
pub(super) struct ComdCpu {
    kernel: KernelName,
    system: System,
    start: System,
    pairs: (u64, u64),
    steps: u64,
    comd_init: bool,
}

impl ComdCpu {
    /// The start of `params` in f64, with its forces.
    pub(super) fn new(params: &Params) -> Result<ComdCpu> {
        let (system, pairs) = initial(params, Precision::F64)?;
        Ok(ComdCpu {
            kernel: params.kernel,
            start: system.clone(),
            system,
            pairs,
            steps: params.run_steps(),
            comd_init: params.init == Init::Comd,
        })
    }
}

impl CpuKernel for ComdCpu {
    fn run(&mut self) {
        let s = &mut self.system;
        match self.kernel {
            KernelName::AdvanceVelocity => s.kick(),
            KernelName::AdvancePosition => s.drift(),
            KernelName::Redistribute => {
                s.bin();
            }
            KernelName::Force => {
                s.compute_forces();
            }
            KernelName::Step => {
                for _ in 0..self.steps {
                    s.step();
                }
            }
        }
    }

    fn validate(&self) -> Validation {
        let s = &self.system;
        let total = |v: &[f64]| -> f64 {
            (0..3)
                .map(|d| v.iter().skip(d).step_by(3).sum::<f64>().abs())
                .fold(0.0, f64::max)
        };
        match self.kernel {
            KernelName::Force => {
                let mut v = Validation::compare(
                    &[total(&s.frc)],
                    &[0.0],
                    1e-9,
                    1.0,
                    "sum of forces (eV/A)",
                );
                if self.comd_init {
                    v = v.and(Validation::compare(
                        &[s.energies().0],
                        &[md::COMD_PE0],
                        1e-10,
                        1.0,
                        "lattice energy vs CoMD",
                    ));
                }
                v
            }
            KernelName::Step => {
                let (p0, k0) = self.start.energies();
                let (p1, k1) = s.energies();
                let drift = ((p1 + k1) / (p0 + k0) - 1.0).abs();
                Validation {
                    reference: false,
                    max_error: drift,
                    tolerance: 1e-4,
                    passed: drift <= 1e-4,
                    detail: format!("energy drift {drift:.2e} over {} steps", self.steps),
                }
            }
            KernelName::Redistribute => {
                let placed: BTreeSet<u32> = s.bin().into_iter().flatten().collect();
                Validation::compare(
                    &[placed.len() as f64],
                    &[s.atoms() as f64],
                    0.0,
                    1.0,
                    "atoms binned once",
                )
            }
            KernelName::AdvanceVelocity | KernelName::AdvancePosition => Validation::compare(
                &[total(&s.vel) * md::mass()],
                &[0.0],
                1e-9,
                1.0,
                "total momentum",
            ),
        }
    }

    fn model(&self) -> Model {
        model(
            self.kernel,
            self.start.atoms() as u64,
            self.start.ncells() as u64,
            self.pairs,
            self.steps,
            Precision::F64,
            pair_flops(None, Precision::F64),
        )
    }
}
