//! The registry: every app the suite knows, in run order. Adding an app is one
//! line here plus its module and shader folder.

use crate::app::App;
use crate::apps;
use crate::error::{Error, Result};
use crate::scale::Distributed;

/// Every registered app.
pub fn apps() -> Vec<&'static dyn App> {
    vec![
        &apps::stream::Stream,
        &apps::peak::Peak,
        &apps::cache::Cache,
        &apps::gpp::Gpp,
        &apps::su3::Su3,
        &apps::lbm::Lbm,
        &apps::milc::Milc,
        &apps::comd::Comd,
        &apps::snap::Snap,
    ]
}

/// The apps that run split over ranks (`mpirun -np N skylight run APP`).
pub fn distributed() -> Vec<&'static dyn Distributed> {
    vec![&apps::lbm::dist::Split, &apps::milc::dist::Split]
}

/// The distributed form of app `name`, or an error naming those there are.
pub fn find_distributed(name: &str) -> Result<&'static dyn Distributed> {
    let all = distributed();
    all.iter()
        .find(|a| a.name() == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|a| a.name()).collect();
            Error::bad_param(
                "app",
                format!(
                    "`{name}` does not run over MPI ranks; these do: {}",
                    names.join(", ")
                ),
            )
        })
}

/// The app called `name`, or `UnknownApp`.
pub fn find(name: &str) -> Result<&'static dyn App> {
    apps()
        .into_iter()
        .find(|a| a.name() == name)
        .ok_or_else(|| Error::UnknownApp(name.to_string()))
}

#[cfg(test)]
mod tests {
    use crate::Precision;
    use crate::shader::Df64Mode;

    /// Every kernel composed with every prelude (and every df64 formulation)
    /// parses and validates with naga, with only the capabilities it needs.
    #[test]
    fn every_kernel_validates_with_every_prelude() {
        for app in super::apps() {
            for p in Precision::ALL {
                let specs = app.shaders(p);
                assert!(!specs.is_empty(), "{} declares no shaders", app.name());
                for spec in specs {
                    let modes: &[Df64Mode] = if p == Precision::Df64 {
                        &Df64Mode::ALL
                    } else {
                        &Df64Mode::ALL[..1]
                    };
                    for &m in modes {
                        if let Err(e) = spec.validate(m) {
                            panic!("{} ({p}, {m:?}): {e}", app.name());
                        }
                        if m.precise
                            && p == Precision::Df64
                            && let Err(e) = crate::precise::precise_spirv(&spec, m, false)
                        {
                            panic!("{} ({p}, {m:?}) to SPIR-V: {e}", app.name());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_app_is_an_error() {
        assert!(super::find("nope").is_err());
        assert!(super::find("stream").is_ok());
    }
}
