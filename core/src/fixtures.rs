//! Records for unit tests of the modules that compare records (efficiency,
//! portability, native import): one validated record of a case on a named
//! device, and a native code's source, so each test says only what differs.

use std::collections::BTreeMap;

use crate::app::{Case, Model, Validation};
use crate::device::PlatformInfo;
use crate::native::{NativeSource, Statistic};
use crate::record::ResultRecord;
use crate::timing::TimingMethod;

/// A validated record of `case` on device `device` through `backend`, with
/// `model` and the samples `samples_s`.
pub fn record(
    case: Case,
    device: &str,
    backend: &str,
    model: Model,
    samples_s: Vec<f64>,
) -> ResultRecord {
    let platform = PlatformInfo {
        index: Some(0),
        name: device.into(),
        backend: backend.into(),
        device_type: "discrete".into(),
        driver: "d".into(),
        driver_info: "1".into(),
        vendor: 0,
        device: 0,
        df64: None,
        offers: None,
    };
    let passed = Validation {
        reference: false,
        max_error: 0.0,
        tolerance: 1.0,
        passed: true,
        detail: String::new(),
    };
    ResultRecord::new(
        case,
        platform,
        TimingMethod::GpuTimestampsPasses,
        samples_s,
        model,
        passed,
        BTreeMap::new(),
    )
}

/// A native CUDA code `code` whose figure is `statistic` of its samples.
pub fn native_source(code: &str, port: bool, statistic: Statistic) -> NativeSource {
    NativeSource {
        model: "CUDA".into(),
        code: code.into(),
        commit: "c".into(),
        port,
        build: "nvcc".into(),
        statistic,
    }
}
