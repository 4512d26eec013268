//! The graphics APIs (wgpu's backends) an adapter may be opened through,
//! as `--backend` and `SKYLIGHT_BACKEND` name them, and whether this build
//! has each.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A graphics API wgpu drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// Vulkan (Linux, Windows, Android; MoltenVK aside, not Apple).
    Vulkan,
    /// OpenGL ES 3.1 compute (or desktop GL 4.3) through EGL.
    Gl,
    /// Apple's Metal.
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
    /// The browser's WebGPU (the WebAssembly build).
    WebGpu,
}

impl Api {
    /// Every API, in the order `--backend`'s help lists them.
    pub const ALL: [Api; 5] = [Api::Vulkan, Api::Gl, Api::Metal, Api::Dx12, Api::WebGpu];

    /// The name `--backend` takes and records carry as their platform's backend.
    pub fn name(self) -> &'static str {
        match self {
            Api::Vulkan => "vulkan",
            Api::Gl => "gl",
            Api::Metal => "metal",
            Api::Dx12 => "dx12",
            Api::WebGpu => "webgpu",
        }
    }

    /// The API of wgpu's `backend` (`None` for its no-op backend).
    pub fn of(backend: wgpu::Backend) -> Option<Api> {
        match backend {
            wgpu::Backend::Vulkan => Some(Api::Vulkan),
            wgpu::Backend::Gl => Some(Api::Gl),
            wgpu::Backend::Metal => Some(Api::Metal),
            wgpu::Backend::Dx12 => Some(Api::Dx12),
            wgpu::Backend::BrowserWebGpu => Some(Api::WebGpu),
            wgpu::Backend::Noop => None,
        }
    }

    /// wgpu's backend set of this API.
    pub fn backends(self) -> wgpu::Backends {
        match self {
            Api::Vulkan => wgpu::Backends::VULKAN,
            Api::Gl => wgpu::Backends::GL,
            Api::Metal => wgpu::Backends::METAL,
            Api::Dx12 => wgpu::Backends::DX12,
            Api::WebGpu => wgpu::Backends::BROWSER_WEBGPU,
        }
    }

    /// `Ok` when this build has the API's backend; otherwise an error
    /// saying where it exists, before anything is opened.
    pub fn check_built(self) -> Result<()> {
        check_built_in(self, wgpu::Instance::enabled_backend_features())
    }
}

/// [`Api::check_built`] against the backends `built` of a build.
fn check_built_in(api: Api, built: wgpu::Backends) -> Result<()> {
    if built.contains(api.backends()) {
        return Ok(());
    }
    let where_ = match api {
        Api::Vulkan => "Linux, Windows and Android builds",
        Api::Gl => "Linux, Windows and Android builds (through EGL)",
        Api::Metal => "macOS and iOS builds",
        Api::Dx12 => "Windows builds",
        Api::WebGpu => "the WebAssembly build, in a browser (web/)",
    };
    Err(Error::NoAdapter(format!(
        ": this build has no {} backend (it is in {where_})",
        api.name()
    )))
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Api {
    type Err = String;

    /// Parses a backend name, any case.
    fn from_str(s: &str) -> std::result::Result<Api, String> {
        let s = s.trim();
        Api::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<&str> = Api::ALL.iter().map(|a| a.name()).collect();
                format!("unknown backend `{s}`: one of {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_refused() {
        for api in Api::ALL {
            assert_eq!(api.name().parse::<Api>(), Ok(api));
            assert_eq!(api.to_string().to_uppercase().parse::<Api>(), Ok(api));
        }
        let err = "opengl".parse::<Api>().expect_err("not a backend");
        assert!(err.contains("vulkan, gl, metal, dx12, webgpu"), "{err}");
    }

    /// A backend the build lacks is an error that says where it exists.
    #[test]
    fn a_backend_left_out_of_the_build_is_an_error() {
        let linux = wgpu::Backends::VULKAN | wgpu::Backends::GL;
        assert!(check_built_in(Api::Gl, linux).is_ok());
        let err = check_built_in(Api::Metal, linux).expect_err("no Metal on Linux");
        assert!(err.to_string().contains("no metal backend"), "{err}");
        assert!(err.to_string().contains("macOS"), "{err}");
        assert!(check_built_in(Api::WebGpu, linux).is_err());
    }
}
