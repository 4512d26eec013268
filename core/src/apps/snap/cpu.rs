//! The CPU reference platform's kernel.

use super::sna::{self, AtomState, C, Config, Tables};
use super::{KernelName, Params, model, problem};
use crate::app::{CpuKernel, Model, Validation};
use crate::error::Result;
use crate::precision::Precision;

/// The force call on the CPU in f64 (the stage kernels run their stage on
/// the reference's inputs), checked against the reference file or, for the
/// synthetic problem, by the forces summing to zero.
pub(super) struct SnapCpu {
    kernel: KernelName,
    config: Config,
    tables: Tables,
    geo: Vec<[f64; 8]>,
    file_forces: Option<Vec<f64>>,
    states: Vec<AtomState>,
    du: Vec<[Vec<C>; 3]>,
    forces: Vec<f64>,
    steps: u64,
}

impl SnapCpu {
    /// The problem of `params` and, for a stage, the reference's states before it.
    pub(super) fn new(params: &Params) -> Result<SnapCpu> {
        let (config, file_forces) = problem(params)?;
        let tables = config.tables();
        let geo = config.geometries();
        let states = match params.kernel {
            KernelName::Force | KernelName::ComputeU => Vec::new(),
            _ => config.states(&tables, &geo),
        };
        Ok(SnapCpu {
            kernel: params.kernel,
            steps: params.run_steps(),
            config,
            tables,
            geo,
            file_forces,
            states,
            du: Vec::new(),
            forces: Vec::new(),
        })
    }
}

impl CpuKernel for SnapCpu {
    fn run(&mut self) {
        let (c, t, g) = (&self.config, &self.tables, &self.geo);
        match self.kernel {
            KernelName::ComputeU => {
                self.states = crate::parallel::collect(c.nlocal, |i| {
                    let (ulist, utot) = c.atom_u(t, g, i);
                    AtomState {
                        ulist,
                        utot,
                        y: Vec::new(),
                    }
                });
            }
            KernelName::ComputeY => {
                let y = crate::parallel::collect(c.nlocal, |i| t.ylist(&self.states[i].utot));
                for (s, y) in self.states.iter_mut().zip(y) {
                    s.y = y;
                }
            }
            KernelName::ComputeDu => {
                self.du = crate::parallel::collect(c.pairs(), |q| {
                    let u = &self.states[q / c.nnbr].ulist[q % c.nnbr];
                    Config::pair_du(t, &g[q], u)
                });
            }
            KernelName::ComputeDe => self.forces = c.pair_forces(t, g, &self.states),
            KernelName::Force => {
                for _ in 0..self.steps {
                    self.forces = c.forces();
                }
            }
        }
    }

    fn validate(&self) -> Validation {
        if self.kernel != KernelName::Force {
            let values = self.states.iter().flat_map(|s| s.utot.iter().chain(&s.y));
            let du = self.du.iter().flatten().flatten();
            let bad = values
                .chain(du)
                .filter(|c| !(c.re.is_finite() && c.im.is_finite()));
            let bad = bad.count() + self.forces.iter().filter(|x| !x.is_finite()).count();
            return Validation {
                reference: false,
                max_error: bad as f64,
                tolerance: 0.0,
                passed: bad == 0,
                detail: format!(
                    "{}: {bad} values not finite (its values are checked on the GPU and through the force case)",
                    self.kernel
                ),
            };
        }
        match &self.file_forces {
            Some(want) => {
                let rms = sna::rms_deviation(&self.forces, want);
                Validation {
                    reference: false,
                    max_error: rms,
                    tolerance: 1e-10,
                    passed: rms <= 1e-10,
                    detail: format!("RMS |F| deviation {rms:.3e} eV/A vs the reference file"),
                }
            }
            None => {
                let total = (0..3)
                    .map(|k| self.forces.iter().skip(k).step_by(3).sum::<f64>().abs())
                    .fold(0.0, f64::max);
                Validation::compare(&[total], &[0.0], 1e-10, 1.0, "sum of forces (eV/A)")
            }
        }
    }

    fn model(&self) -> Model {
        model(
            self.kernel,
            &self.tables,
            &self.config,
            self.steps,
            Precision::F64,
            false,
        )
    }
}
