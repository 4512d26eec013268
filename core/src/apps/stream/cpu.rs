//! The stream kernels on the CPU reference platform.

use super::{Inputs, KernelName, Params, SCALAR, model, validate};
use crate::app::{CpuKernel, Model, Validation};
use crate::parallel;
use crate::precision::Precision;

/// The same kernels on the CPU in f64 (rayon).
pub(super) struct StreamCpu {
    kernel: KernelName,
    inputs: Inputs,
    out: Vec<f64>,
    dot: f64,
}

impl StreamCpu {
    pub(super) fn new(params: &Params) -> StreamCpu {
        let n = params.n as usize;
        StreamCpu {
            kernel: params.kernel,
            inputs: Inputs::new(n, Precision::F64),
            out: vec![f64::NAN; n],
            dot: f64::NAN,
        }
    }
}

impl CpuKernel for StreamCpu {
    fn run(&mut self) {
        let (a, b, c) = (&self.inputs.a, &self.inputs.b, &self.inputs.c);
        let s = SCALAR;
        match self.kernel {
            KernelName::Copy | KernelName::CopyBuffer => parallel::fill(&mut self.out, |i| a[i]),
            KernelName::Mul => parallel::fill(&mut self.out, |i| s * c[i]),
            KernelName::Add => parallel::fill(&mut self.out, |i| a[i] + b[i]),
            KernelName::Triad => parallel::fill(&mut self.out, |i| b[i] + s * c[i]),
            KernelName::Nstream => parallel::fill(&mut self.out, |i| a[i] + b[i] + s * c[i]),
            KernelName::Dot => self.dot = parallel::sum(a.len(), |i| a[i] * b[i]),
        }
    }

    fn validate(&self) -> Validation {
        if self.kernel == KernelName::Dot {
            return validate(KernelName::Dot, Precision::F64, &self.inputs, 1, |_| {
                self.dot
            });
        }
        let out = &self.out;
        validate(self.kernel, Precision::F64, &self.inputs, out.len(), |i| {
            out[i]
        })
    }

    fn model(&self) -> Model {
        model(self.kernel, self.inputs.a.len() as u64, Precision::F64)
    }
}
