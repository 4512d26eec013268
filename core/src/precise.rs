//! WGSL compiled to SPIR-V with every float operation decorated
//! `NoContraction`, for df64 on Vulkan.
//!
//! Double-word arithmetic needs each rounding to happen as written. naga emits
//! no `NoContraction`, so drivers may fuse and reassociate the error-free
//! transforms away; the portable fix (the runtime-zero XOR guard of
//! `df64.wgsl`) costs an integer instruction per float one. Vulkan drivers
//! implement GLSL's `precise` through this decoration, so decorating the
//! module keeps the arithmetic as written at no instruction cost. The df64
//! self-test still decides whether the driver honours it.

use naga::back::spv;
use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};

use crate::error::{Error, Result};
use crate::shader::{Df64Mode, ShaderSpec};

/// Float arithmetic whose result a compiler could contract or reassociate.
const FLOAT_OPS: [spirv::Op; 13] = [
    spirv::Op::FNegate,
    spirv::Op::FAdd,
    spirv::Op::FSub,
    spirv::Op::FMul,
    spirv::Op::FDiv,
    spirv::Op::FRem,
    spirv::Op::FMod,
    spirv::Op::VectorTimesScalar,
    spirv::Op::MatrixTimesScalar,
    spirv::Op::VectorTimesMatrix,
    spirv::Op::MatrixTimesVector,
    spirv::Op::MatrixTimesMatrix,
    spirv::Op::Dot,
];

/// Instructions that precede the types section: decorations go after them.
const HEADER_OPS: [spirv::Op; 24] = [
    spirv::Op::Capability,
    spirv::Op::Extension,
    spirv::Op::ExtInstImport,
    spirv::Op::MemoryModel,
    spirv::Op::EntryPoint,
    spirv::Op::ExecutionMode,
    spirv::Op::ExecutionModeId,
    spirv::Op::String,
    spirv::Op::SourceExtension,
    spirv::Op::Source,
    spirv::Op::SourceContinued,
    spirv::Op::Name,
    spirv::Op::MemberName,
    spirv::Op::ModuleProcessed,
    spirv::Op::Decorate,
    spirv::Op::MemberDecorate,
    spirv::Op::DecorationGroup,
    spirv::Op::GroupDecorate,
    spirv::Op::GroupMemberDecorate,
    spirv::Op::DecorateId,
    spirv::Op::DecorateString,
    spirv::Op::MemberDecorateString,
    spirv::Op::Line,
    spirv::Op::NoLine,
];

/// Words of the SPIR-V header before the first instruction.
const HEADER_WORDS: usize = 5;

/// A module compiled by [`precise_spirv`].
pub struct PreciseModule {
    /// The SPIR-V words.
    pub words: Vec<u32>,
    /// Its entry points with their workgroup sizes, which a passthrough
    /// module must declare because wgpu does not parse it.
    pub entry_points: Vec<(String, [u32; 3])>,
}

/// `spec` composed for `df64` and compiled to SPIR-V 1.3 with the safety
/// wgpu gives WGSL (bounds-checked indexing, zeroed workgroup memory; loops
/// unbounded, as in [`crate::gpu::Gpu::pipeline`]), float operations precise.
/// With `robust_buffers` (the device defines out-of-bounds buffer accesses:
/// Vulkan's robustBufferAccess2, which wgpu enables where the adapter has it)
/// buffer accesses go unchecked, as wgpu compiles WGSL on such a device;
/// otherwise they are clamped.
pub fn precise_spirv(
    spec: &ShaderSpec,
    df64: Df64Mode,
    robust_buffers: bool,
) -> Result<PreciseModule> {
    // wgpu hands this module to the driver as it is: naga's zeroing runs.
    let plain = spirv(spec, df64, robust_buffers, false)?;
    Ok(PreciseModule {
        words: decorate_no_contraction(&plain.words)?,
        ..plain
    })
}

/// `spec` compiled to SPIR-V as [`precise_spirv`] does, without the
/// `NoContraction` decorations: what wgpu hands a Vulkan driver for the WGSL
/// (close to it: wgpu picks its own SPIR-V version and capabilities).
/// Workgroup memory is zeroed by the driver where `driver_zeroing` (as wgpu
/// asks a driver that can), else by naga's stores at the kernel's start.
pub fn spirv(
    spec: &ShaderSpec,
    df64: Df64Mode,
    robust_buffers: bool,
    driver_zeroing: bool,
) -> Result<PreciseModule> {
    let (module, info) = spec.naga_module(df64)?;
    let options = spv::Options {
        lang_version: (1, 3),
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::Restrict,
            buffer: if robust_buffers {
                BoundsCheckPolicy::Unchecked
            } else {
                BoundsCheckPolicy::Restrict
            },
            ..Default::default()
        },
        force_loop_bounding: false,
        zero_initialize_workgroup_memory: if driver_zeroing {
            spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
        },
        ..Default::default()
    };
    let words = spv::write_vec(&module, &info, &options, None).map_err(|e| Error::Shader {
        name: spec.label.clone(),
        message: format!("SPIR-V output failed: {e}"),
    })?;
    Ok(PreciseModule {
        words,
        entry_points: module
            .entry_points
            .iter()
            .map(|e| (e.name.clone(), e.workgroup_size))
            .collect(),
    })
}

/// `words` with an `OpDecorate <id> NoContraction` for every result of
/// [`FLOAT_OPS`], inserted at the end of the annotations.
fn decorate_no_contraction(words: &[u32]) -> Result<Vec<u32>> {
    let malformed = |why: &str| Error::Shader {
        name: "spir-v".into(),
        message: format!("malformed SPIR-V: {why}"),
    };
    if words.len() < HEADER_WORDS || words[0] != spirv::MAGIC_NUMBER {
        return Err(malformed("no SPIR-V header"));
    }
    let mut insert_at = None;
    let mut decorations = Vec::new();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(malformed("instruction overruns the module"));
        }
        if insert_at.is_none() && !HEADER_OPS.iter().any(|&op| op as u32 == opcode) {
            insert_at = Some(at);
        }
        if FLOAT_OPS.iter().any(|&op| op as u32 == opcode) {
            // Arithmetic instructions: opcode, result type, result id, operands.
            let id = *words
                .get(at + 2)
                .filter(|_| count > 2)
                .ok_or_else(|| malformed("arithmetic without a result"))?;
            decorations.extend_from_slice(&[
                (3 << 16) | spirv::Op::Decorate as u32,
                id,
                spirv::Decoration::NoContraction as u32,
            ]);
        }
        at += count;
    }
    let split = insert_at.ok_or_else(|| malformed("no types or functions"))?;
    let mut out = Vec::with_capacity(words.len() + decorations.len());
    out.extend_from_slice(&words[..split]);
    out.extend_from_slice(&decorations);
    out.extend_from_slice(&words[split..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(words: &[u32]) -> Vec<(u32, Vec<u32>)> {
        let mut v = Vec::new();
        let mut at = HEADER_WORDS;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            v.push((words[at] & 0xffff, words[at + 1..at + count].to_vec()));
            at += count;
        }
        v
    }

    #[test]
    fn every_float_operation_is_decorated_before_the_types() -> Result<()> {
        let src = "@group(0) @binding(0) var<storage, read_write> x: array<f32>;
            @compute @workgroup_size(1) fn main() { let a = x[0]; x[1] = (a + x[2]) * a - a / x[3]; }";
        let spec = ShaderSpec::new("test", src, crate::Precision::F32);
        let compiled = precise_spirv(&spec, Df64Mode::ALL[0], false)?;
        assert_eq!(compiled.entry_points, vec![("main".to_string(), [1, 1, 1])]);
        let list = ops(&compiled.words);
        let arith: Vec<u32> = list
            .iter()
            .filter(|(op, _)| FLOAT_OPS.iter().any(|&f| f as u32 == *op))
            .map(|(_, w)| w[1])
            .collect();
        assert!(arith.len() >= 4, "add, mul, div, sub: {arith:?}");
        let decorated: Vec<u32> = list
            .iter()
            .filter(|(op, w)| {
                *op == spirv::Op::Decorate as u32 && w[1] == spirv::Decoration::NoContraction as u32
            })
            .map(|(_, w)| w[0])
            .collect();
        assert_eq!(decorated, arith);
        let first_type = list.iter().position(|(op, _)| {
            *op == spirv::Op::TypeVoid as u32 || *op == spirv::Op::TypeFloat as u32
        });
        let last_decoration = list
            .iter()
            .rposition(|(op, _)| *op == spirv::Op::Decorate as u32);
        assert!(last_decoration < first_type);
        Ok(())
    }

    #[test]
    fn truncated_spirv_is_an_error_not_a_panic() {
        assert!(
            decorate_no_contraction(&[spirv::MAGIC_NUMBER, 0, 0, 10, 0, (9 << 16) | 129]).is_err()
        );
        assert!(decorate_no_contraction(&[1, 2, 3]).is_err());
    }
}
