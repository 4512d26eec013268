//! Skylight's own EGL context for wgpu's GL backend on Linux.
//!
//! wgpu-hal 30 makes its context itself and, wherever EGL offers desktop
//! OpenGL, asks for exactly 3.3 core (falling back to OpenGL ES only when
//! that fails). NVIDIA's driver gives 3.3, which has no compute shaders,
//! so no device opens; Mesa gives its highest version, which is why
//! llvmpipe never showed it. So Skylight makes the context, of a version
//! with compute shaders, and hands it to wgpu as an external one; every GL
//! adapter goes through here, so that CI's llvmpipe runs the code a GPU's
//! driver does.
//!
//! wgpu drives an external context on whatever thread calls it and leaves
//! making it current to its owner: each thread gets a context of its own,
//! made on first use and current there until the thread ends. A GL device
//! is used, and dropped, on the thread that opened it.

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::OnceLock;

use khronos_egl as egl;

use crate::error::{Error, Result};

/// libEGL, loaded once (through GLVND where installed, which picks the
/// vendor's driver).
type Egl = egl::DynamicInstance<egl::EGL1_4>;

/// `EGL_PLATFORM_SURFACELESS_MESA`: a display with no window system.
const PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;

/// A context version to ask for.
#[derive(Clone, Copy, Debug)]
struct Version {
    /// OpenGL ES rather than desktop OpenGL (core profile).
    es: bool,
    major: i32,
    minor: i32,
}

impl Version {
    fn api(self) -> egl::Enum {
        if self.es {
            egl::OPENGL_ES_API
        } else {
            egl::OPENGL_API
        }
    }

    fn name(self) -> String {
        let api = if self.es { "OpenGL ES" } else { "OpenGL" };
        let profile = if self.es { "" } else { " core" };
        format!("{api} {}.{}{profile}", self.major, self.minor)
    }
}

/// What is asked for, best first. Desktop 4.3 core has compute shaders and
/// `GL_ARB_timer_query`, the only timer wgpu's GL backend reads (drivers
/// give their highest compatible version: 4.6 on NVIDIA, 4.5 on Mesa);
/// OpenGL ES 3.2 and 3.1 have compute but no timestamps, for drivers
/// without desktop GL.
const VERSIONS: [Version; 3] = [
    Version {
        es: false,
        major: 4,
        minor: 3,
    },
    Version {
        es: true,
        major: 3,
        minor: 2,
    },
    Version {
        es: true,
        major: 3,
        minor: 1,
    },
];

/// [`VERSIONS`], or those of one API where `SKYLIGHT_GL` names it (`es`
/// or `desktop`): to compare the two, or to keep off a driver's desktop
/// GL should wgpu misread it.
fn versions() -> std::result::Result<Vec<Version>, String> {
    let wanted = std::env::var("SKYLIGHT_GL").unwrap_or_default();
    let es = match wanted.trim().to_ascii_lowercase().as_str() {
        "" => return Ok(VERSIONS.to_vec()),
        "es" => true,
        "desktop" => false,
        _ => {
            return Err(format!(
                "SKYLIGHT_GL is `{wanted}`: `es` or `desktop` (unset: desktop, else ES)"
            ));
        }
    };
    Ok(VERSIONS.into_iter().filter(|v| v.es == es).collect())
}

/// One thread's context and what it is.
struct Context {
    /// The client API it was made for, which EGL releases and binds
    /// contexts of per thread.
    api: egl::Enum,
    display: egl::Display,
    context: egl::Context,
    /// A 1x1 pbuffer, where the display cannot make a context current
    /// without a surface.
    surface: Option<egl::Surface>,
    /// The display's EGL version and vendor, and the version asked for.
    driver: String,
}

thread_local! {
    /// This thread's context, made on first use and kept current.
    static CONTEXT: RefCell<Option<Context>> = const { RefCell::new(None) };
}

/// A wgpu adapter on this thread's context (made, and made current, on
/// first use), or why there is none: the EGL errors of each display and
/// version tried.
pub(crate) fn adapter() -> Result<wgpu::Adapter> {
    let egl = library()?;
    CONTEXT.with(|slot| {
        let mut slot = slot.borrow_mut();
        match slot.as_ref() {
            // Made current again, in case something else took the thread.
            Some(c) => c.make_current(egl).map_err(failed),
            None => {
                *slot = Some(Context::new(egl)?);
                Ok(())
            }
        }
    })?;
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // No backend of wgpu's own: the adapter comes from the context here.
    desc.backends = wgpu::Backends::empty();
    let instance = wgpu::Instance::new(desc);
    let load = |name: &str| {
        egl.get_proc_address(name)
            .map_or(std::ptr::null(), |f| f as *const c_void)
    };
    let options = wgpu::GlBackendOptions::default().with_env();
    // SAFETY: the context the functions are loaded for is current on this
    // thread and stays so until the thread ends (see the module's doc),
    // and Skylight drives GL devices from their opening thread only (the
    // keep-warm kernel, which has a thread of its own, stays off on GL).
    #[allow(unsafe_code)]
    let exposed = unsafe { wgpu::hal::gles::Adapter::new_external(load, options) }
        .ok_or_else(|| failed(format!("wgpu cannot use the {} context", driver())))?;
    // SAFETY: an adapter of wgpu's GL backend; the instance has no backend
    // of its own that it could belong to instead.
    #[allow(unsafe_code)]
    let adapter = unsafe { instance.create_adapter_from_hal(exposed) };
    Ok(adapter)
}

/// What this thread's context is, e.g. `EGL 1.5 Mesa Project (asked OpenGL
/// 4.3 core)`; empty before one is made.
pub(crate) fn driver() -> String {
    CONTEXT
        .with(|c| c.borrow().as_ref().map(|c| c.driver.clone()))
        .unwrap_or_default()
}

fn failed(why: String) -> Error {
    Error::NoAdapter(format!(" on the gl backend: {why}"))
}

/// libEGL, loaded on first use and kept for the process (unloading it
/// while a driver's threads run is not safe).
fn library() -> Result<&'static Egl> {
    static EGL: OnceLock<std::result::Result<Egl, String>> = OnceLock::new();
    EGL.get_or_init(|| {
        // SAFETY: loading libEGL runs its initialisers, which expect nothing
        // of the caller; the library is never unloaded.
        #[allow(unsafe_code)]
        let loaded = unsafe { Egl::load_required() };
        loaded.map_err(|e| {
            format!(
                "cannot load libEGL.so.1 ({e}; apt-get install libegl1 libegl-mesa0 for Mesa's)"
            )
        })
    })
    .as_ref()
    .map_err(|e| failed(e.clone()))
}

impl Context {
    /// A context with compute shaders on the first display that makes
    /// one, made current on this thread.
    fn new(egl: &Egl) -> Result<Context> {
        let versions = versions().map_err(failed)?;
        let mut tried = Vec::new();
        for (name, display) in displays(egl) {
            let made = display.and_then(|d| Context::on(egl, d, &versions));
            match made {
                Ok(c) => {
                    log::info!("GL through EGL: {} on the {name} display", c.driver);
                    return Ok(c);
                }
                Err(e) => tried.push(format!("{name} display: {e}")),
            }
        }
        Err(failed(format!(
            "no EGL context with compute shaders ({})",
            tried.join("; ")
        )))
    }

    /// A context of the first of `versions` that `display` makes.
    fn on(
        egl: &Egl,
        display: egl::Display,
        versions: &[Version],
    ) -> std::result::Result<Context, String> {
        let (major, minor) = egl
            .initialize(display)
            .map_err(|e| format!("eglInitialize: {}", egl_error(e)))?;
        let vendor = egl
            .query_string(Some(display), egl::VENDOR)
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default();
        let extensions = egl
            .query_string(Some(display), egl::EXTENSIONS)
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default();
        let surfaceless =
            (major, minor) >= (1, 5) || extensions.contains("EGL_KHR_surfaceless_context");
        let mut errors = Vec::new();
        for &v in versions {
            match create(egl, display, v, surfaceless) {
                Ok((context, surface)) => {
                    let c = Context {
                        api: v.api(),
                        display,
                        context,
                        surface,
                        driver: format!("EGL {major}.{minor} {vendor} (asked {})", v.name()),
                    };
                    c.make_current(egl)?;
                    return Ok(c);
                }
                Err(e) => errors.push(format!("{}: {e}", v.name())),
            }
        }
        Err(format!(
            "EGL {major}.{minor} ({vendor}): {}",
            errors.join(", ")
        ))
    }

    fn make_current(&self, egl: &Egl) -> std::result::Result<(), String> {
        egl.bind_api(self.api)
            .map_err(|e| format!("eglBindAPI: {}", egl_error(e)))?;
        egl.make_current(self.display, self.surface, self.surface, Some(self.context))
            .map_err(|e| format!("eglMakeCurrent: {}", egl_error(e)))
    }
}

impl Drop for Context {
    /// Releases and destroys the context as its thread ends. The display
    /// is left initialised: other threads' contexts use the same one.
    fn drop(&mut self) {
        let Ok(egl) = library() else { return };
        // Failures here have no one to report to: the thread is ending.
        let _ = egl.bind_api(self.api);
        let _ = egl.make_current(self.display, None, None, None);
        let _ = egl.destroy_context(self.display, self.context);
        if let Some(s) = self.surface {
            let _ = egl.destroy_surface(self.display, s);
        }
    }
}

/// The displays to try, in order, by name: Mesa's surfaceless platform
/// where EGL has it, then the default display; the order wgpu picks its
/// own display in when it has no window.
fn displays(egl: &Egl) -> Vec<(&'static str, std::result::Result<egl::Display, String>)> {
    let client = egl
        .query_string(None, egl::EXTENSIONS)
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    if client.contains("EGL_MESA_platform_surfaceless")
        && let Some(egl15) = egl.upcast::<egl::EGL1_5>()
    {
        // SAFETY: the surfaceless platform takes no native display.
        #[allow(unsafe_code)]
        let display = unsafe {
            egl15.get_platform_display(
                PLATFORM_SURFACELESS_MESA,
                egl::DEFAULT_DISPLAY,
                &[egl::ATTRIB_NONE],
            )
        };
        out.push((
            "surfaceless",
            display.map_err(|e| format!("eglGetPlatformDisplay: {}", egl_error(e))),
        ));
    }
    // SAFETY: EGL_DEFAULT_DISPLAY is always a valid native display id.
    #[allow(unsafe_code)]
    let display = unsafe { egl.get_display(egl::DEFAULT_DISPLAY) };
    out.push((
        "default",
        display.ok_or_else(|| "eglGetDisplay gave no display".to_string()),
    ));
    out
}

/// A context of `version` on `display`, with the pbuffer it is made
/// current with unless the display is `surfaceless`. Robust buffer access
/// is asked for first, as wgpu does for its own contexts.
fn create(
    egl: &Egl,
    display: egl::Display,
    version: Version,
    surfaceless: bool,
) -> std::result::Result<(egl::Context, Option<egl::Surface>), String> {
    let renderable = if version.es {
        egl::OPENGL_ES3_BIT
    } else {
        egl::OPENGL_BIT
    };
    egl.bind_api(version.api())
        .map_err(|e| format!("eglBindAPI: {}", egl_error(e)))?;
    // eglChooseConfig's default surface type is a window, which headless
    // displays have no configs for.
    let surface = if surfaceless {
        egl::DONT_CARE
    } else {
        egl::PBUFFER_BIT
    };
    let wanted = [
        egl::RENDERABLE_TYPE,
        renderable,
        egl::SURFACE_TYPE,
        surface,
        egl::NONE,
    ];
    let config = egl
        .choose_first_config(display, &wanted)
        .map_err(|e| format!("eglChooseConfig: {}", egl_error(e)))?
        .ok_or("no EGL config renders it")?;
    let mut attributes = vec![
        egl::CONTEXT_MAJOR_VERSION,
        version.major,
        egl::CONTEXT_MINOR_VERSION,
        version.minor,
    ];
    if !version.es {
        attributes.extend([
            egl::CONTEXT_OPENGL_PROFILE_MASK,
            egl::CONTEXT_OPENGL_CORE_PROFILE_BIT,
        ]);
    }
    let robust = [egl::CONTEXT_OPENGL_ROBUST_ACCESS, egl::TRUE as egl::Int];
    let context = egl
        .create_context(
            display,
            config,
            None,
            &[&attributes[..], &robust, &[egl::NONE]].concat(),
        )
        .or_else(|_| {
            egl.create_context(
                display,
                config,
                None,
                &[&attributes[..], &[egl::NONE]].concat(),
            )
        })
        .map_err(|e| format!("eglCreateContext: {}", egl_error(e)))?;
    if surfaceless {
        return Ok((context, None));
    }
    let size = [egl::WIDTH, 1, egl::HEIGHT, 1, egl::NONE];
    match egl.create_pbuffer_surface(display, config, &size) {
        Ok(surface) => Ok((context, Some(surface))),
        Err(e) => {
            let _ = egl.destroy_context(display, context);
            Err(format!("eglCreatePbufferSurface: {}", egl_error(e)))
        }
    }
}

/// An EGL error as the specification names it, with what it means.
fn egl_error(e: egl::Error) -> String {
    format!("{e:?} ({e})")
}
