//! WGSL composition: a precision prelude, the complex prelude and one kernel
//! source become one module; constants are injected as WGSL `const`s so one
//! kernel text serves every variant without being copied.

use crate::error::{Error, Result};
use crate::precision::Precision;

/// The WGSL files of `shaders/`, embedded so the library needs no file system
/// (the browser has none).
pub mod sources {
    /// `Real` as f32.
    pub const PRELUDE_F32: &str = include_str!("../../shaders/common/f32.wgsl");
    /// `Real` as native f64.
    pub const PRELUDE_F64: &str = include_str!("../../shaders/common/f64.wgsl");
    /// `Real` as double-word f32 pairs.
    pub const PRELUDE_DF64: &str = include_str!("../../shaders/common/df64.wgsl");
    /// What the f32 and f64 preludes share (appended to both): the df64
    /// prelude's cheaper forms as plain operations, and `c_unpack`.
    pub const SINGLE_WORD: &str = include_str!("../../shaders/common/single_word.wgsl");
    /// `Complex` over `Real`.
    pub const COMPLEX: &str = include_str!("../../shaders/common/complex.wgsl");
    /// Linear indices over 2-D dispatches (needs a `WG` constant).
    pub const GRID: &str = include_str!("../../shaders/common/grid.wgsl");
    /// `reduce_sum`: a fixed-order workgroup tree sum over `Real` (needs `WG`,
    /// a power of two).
    pub const REDUCE: &str = include_str!("../../shaders/common/reduce.wgsl");
    /// `pack` and `unpack` of the halo planes of a lattice field split over
    /// ranks (needs `WG`, the grid functions and `tdp_index`).
    pub const HALO: &str = include_str!("../../shaders/common/halo.wgsl");
    /// `to_host`: a copy of 16-byte words from device memory into a
    /// host-mapped storage buffer, from a few workgroups (needs `WG`).
    pub const TO_HOST: &str = include_str!("../../shaders/common/to_host.wgsl");
}

/// The df64 formulation a kernel is composed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Df64Mode {
    /// TwoProd through a fused `fma` (else Veltkamp/Dekker splitting).
    pub fma: bool,
    /// Route intermediates through an integer XOR with a runtime zero so the compiler cannot cancel them.
    pub guard: bool,
    /// Compile to SPIR-V with every float operation decorated `NoContraction`
    /// (Vulkan only, see `crate::precise`); the WGSL text is unchanged.
    #[serde(default)]
    pub precise: bool,
}

impl Df64Mode {
    /// Every formulation, in order of preference: decorations first (they
    /// state the intent and cost nothing), then plain, then guarded; fused
    /// TwoProd before Veltkamp splitting.
    pub const ALL: [Df64Mode; 6] = [
        Df64Mode::new(true, false, true),
        Df64Mode::new(true, false, false),
        Df64Mode::new(true, true, false),
        Df64Mode::new(false, false, true),
        Df64Mode::new(false, false, false),
        Df64Mode::new(false, true, false),
    ];

    const fn new(fma: bool, guard: bool, precise: bool) -> Self {
        Df64Mode {
            fma,
            guard,
            precise,
        }
    }
}

/// A value injected into a kernel as `const NAME: T = value;`.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// `u32`
    U32(u32),
    /// `bool`
    Bool(bool),
    /// `f32`
    F32(f32),
}

impl std::fmt::Display for ConstValue {
    /// The value as a person reads it: `128`, `true`, `1.5`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConstValue::U32(v) => write!(f, "{v}"),
            ConstValue::Bool(v) => write!(f, "{v}"),
            ConstValue::F32(v) => write!(f, "{v}"),
        }
    }
}

impl ConstValue {
    fn wgsl(&self) -> (&'static str, String) {
        match self {
            ConstValue::U32(v) => ("u32", format!("{v}u")),
            ConstValue::Bool(v) => ("bool", v.to_string()),
            ConstValue::F32(v) => ("f32", format!("{v:?}")),
        }
    }
}

/// Everything needed to turn one kernel source into a module.
#[derive(Clone, Debug)]
pub struct ShaderSpec {
    /// Label for errors and debuggers, e.g. `stream/triad`.
    pub label: String,
    /// The kernel's WGSL, written against the preludes.
    pub source: &'static str,
    /// Arithmetic of `Real`.
    pub precision: Precision,
    /// Constants the kernel expects (workgroup size, layout switches, ...).
    pub consts: Vec<(&'static str, ConstValue)>,
    /// Whether the kernel uses subgroup operations (needs `SUBGROUP`).
    pub subgroups: bool,
    /// Whether the kernel adds f32 atomically (needs `SHADER_FLOAT32_ATOMIC`).
    pub float32_atomics: bool,
    /// Shared or generated WGSL placed between the preludes and the kernel.
    pub includes: Vec<std::borrow::Cow<'static, str>>,
}

impl ShaderSpec {
    /// A spec with no constants.
    pub fn new(label: impl Into<String>, source: &'static str, precision: Precision) -> Self {
        ShaderSpec {
            label: label.into(),
            source,
            precision,
            consts: Vec::new(),
            subgroups: false,
            float32_atomics: false,
            includes: Vec::new(),
        }
    }

    /// Adds a constant.
    pub fn with(mut self, name: &'static str, value: ConstValue) -> Self {
        self.consts.push((name, value));
        self
    }

    /// Adds a `u32` constant.
    pub fn with_u32(self, name: &'static str, value: u32) -> Self {
        self.with(name, ConstValue::U32(value))
    }

    /// Adds a shared snippet (e.g. [`sources::GRID`]).
    pub fn with_include(mut self, snippet: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        self.includes.push(snippet.into());
        self
    }

    /// Marks the kernel as using subgroup operations.
    pub fn with_subgroups(mut self, on: bool) -> Self {
        self.subgroups = on;
        self
    }

    /// Marks the kernel as adding f32 atomically.
    pub fn with_float32_atomics(mut self) -> Self {
        self.float32_atomics = true;
        self
    }

    /// The full module text. `df64` selects the df64 formulation (see
    /// `shaders/common/df64.wgsl`); it is ignored for f32 and f64.
    pub fn compose(&self, df64: Df64Mode) -> String {
        let mut out = String::new();
        // naga 30 accepts subgroup builtins without `enable subgroups;` and
        // rejects that directive as unimplemented; the capability is checked
        // by the validator and by `Gpu::pipeline` instead.
        out.push_str(&format!("// {} ({})\n", self.label, self.precision));
        let prelude = match self.precision {
            Precision::F32 => sources::PRELUDE_F32,
            Precision::F64 => sources::PRELUDE_F64,
            Precision::Df64 => {
                out.push_str(&format!(
                    "const DF64_FMA: bool = {};\nconst DF64_GUARD: bool = {};\n",
                    df64.fma, df64.guard
                ));
                sources::PRELUDE_DF64
            }
        };
        for (name, value) in &self.consts {
            let (ty, v) = value.wgsl();
            out.push_str(&format!("const {name}: {ty} = {v};\n"));
        }
        out.push_str(prelude);
        out.push('\n');
        if self.precision != Precision::Df64 {
            out.push_str(sources::SINGLE_WORD);
            out.push('\n');
        }
        out.push_str(sources::COMPLEX);
        out.push('\n');
        for inc in &self.includes {
            out.push_str(inc);
            out.push('\n');
        }
        out.push_str(self.source);
        out
    }

    /// Parses and validates the composed module with naga, with the
    /// capabilities the precision needs and nothing more, so a kernel that
    /// only works with f64 cannot hide in the f32 build.
    pub fn validate(&self, df64: Df64Mode) -> Result<()> {
        self.naga_module(df64).map(|_| ())
    }

    /// The composed module as naga parsed and validated it (see [`ShaderSpec::validate`]).
    pub fn naga_module(&self, df64: Df64Mode) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
        let text = self.compose(df64);
        let module = naga::front::wgsl::parse_str(&text).map_err(|e| Error::Shader {
            name: self.label.clone(),
            message: e.emit_to_string(&text),
        })?;
        let mut caps = naga::valid::Capabilities::empty();
        if self.precision == Precision::F64 {
            caps |= naga::valid::Capabilities::FLOAT64;
        }
        if self.subgroups {
            caps |= naga::valid::Capabilities::SUBGROUP;
        }
        if self.float32_atomics {
            caps |= naga::valid::Capabilities::SHADER_FLOAT32_ATOMIC;
        }
        let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
            .subgroup_operations(naga::valid::SubgroupOperationSet::all())
            .validate(&module)
            .map_err(|e| Error::Shader {
                name: self.label.clone(),
                message: e.emit_to_string(&text),
            })?;
        Ok((module, info))
    }
}
