//! `skylight scaling`: the strong and weak scaling of scale-out result
//! files (written by `mpirun -np N skylight run ...`) as a table and a
//! chart: time per run against ranks, with the part spent swapping halos.
//! Reading files needs no MPI, so this is in every build.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use plotters::prelude::*;
use skylight_core::record::{ResultFile, ResultRecord};
use skylight_core::scale::Scaling;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// `skylight scaling` arguments.
#[derive(Args)]
pub struct ScalingArgs {
    /// Result files of scale-out runs (1, 2, 4, ... ranks; strong, weak or both).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the chart here (.svg or .png).
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// One point of a scaling curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Ranks.
    pub ranks: usize,
    /// Median time of one run, seconds.
    pub run_s: f64,
    /// Of which pack, transfer and exchange (the decomposition's cost), seconds.
    pub comm_s: f64,
    /// Of which the exchange between ranks alone, seconds.
    pub exchange_s: f64,
    /// Parallel efficiency against the fewest ranks of the curve: T1 N1 /
    /// (TN N) for strong scaling, T1 / TN for weak.
    pub efficiency: f64,
}

/// A curve: one case (kernel, variant, precision, size) in one scaling
/// mode, over rank counts.
pub type Curves = BTreeMap<(Scaling, String), Vec<Point>>;

/// Groups scale-out records into curves, sorted by ranks; single-device
/// records are left out.
pub fn curves(records: &[ResultRecord]) -> Curves {
    let mut out: Curves = BTreeMap::new();
    for r in records {
        let Some(s) = &r.scale else { continue };
        let c = &r.case;
        // A lattice with a split time axis (milc) also names it: the whole
        // of it for strong scaling, a rank's share for weak scaling.
        let t = match (c.uint("T"), s.scaling) {
            (Ok(t), Scaling::Strong) => format!(" T={t}"),
            (Ok(t), Scaling::Weak) => format!(" T={}/rank", t / s.ranks.max(1) as u64),
            (Err(_), _) => String::new(),
        };
        let key = format!(
            "{}/{} {} {} L={}{t}{}{}",
            c.app,
            c.kernel,
            c.variant,
            c.precision,
            c.text("L"),
            if s.axes > 1 { " grid" } else { "" },
            if s.overlap { " overlapped" } else { "" }
        );
        out.entry((s.scaling, key)).or_default().push(Point {
            ranks: s.ranks,
            run_s: r.stats.median,
            comm_s: s.split.communication(),
            exchange_s: s.split.exchange_s,
            efficiency: 0.0,
        });
    }
    for ((mode, _), points) in out.iter_mut() {
        points.sort_by_key(|p| p.ranks);
        let (n1, t1) = (points[0].ranks as f64, points[0].run_s);
        for p in points.iter_mut() {
            p.efficiency = match mode {
                Scaling::Strong => t1 * n1 / (p.run_s * p.ranks as f64),
                Scaling::Weak => t1 / p.run_s,
            };
        }
    }
    out
}

/// Prints the table and draws the chart.
pub fn run(args: &ScalingArgs) -> Result<bool> {
    let mut records = Vec::new();
    for f in &args.files {
        records.extend(ResultFile::load(f)?.records);
    }
    let curves = curves(&records);
    if curves.is_empty() {
        bail!("no scale-out records in these files (run them under mpirun)");
    }
    println!(
        "{:<7} {:<44} {:>5} {:>12} {:>11} {:>9} {:>10}",
        "scaling", "case", "ranks", "run", "efficiency", "exchange", "comm."
    );
    for ((mode, case), points) in &curves {
        for p in points {
            println!(
                "{:<7} {:<44} {:>5} {:>9.3} ms {:>10.0}% {:>8.0}% {:>9.0}%",
                mode.name(),
                case,
                p.ranks,
                p.run_s * 1e3,
                100.0 * p.efficiency,
                100.0 * p.exchange_s / p.run_s,
                100.0 * p.comm_s / p.run_s
            );
        }
    }
    if let Some(path) = &args.plot {
        draw(&curves, path)?;
        eprintln!("scaling chart written to {}", path.display());
    }
    Ok(true)
}

/// One panel per scaling mode: time per run (solid) and its communication
/// part (thin) against ranks.
fn draw(curves: &Curves, path: &Path) -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| anyhow!("embedded font is invalid"))?;
    let size = (1100, 480);
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => render(curves, SVGBackend::new(path, size).into_drawing_area()),
        Some("png") => render(curves, BitMapBackend::new(path, size).into_drawing_area()),
        _ => bail!("plot file must end in .svg or .png"),
    }
    .with_context(|| format!("drawing {}", path.display()))
}

fn render<DB: DrawingBackend>(
    curves: &Curves,
    area: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    area.fill(&WHITE).map_err(e)?;
    let panels = area.split_evenly((1, 2));
    for (panel, mode) in panels.iter().zip([Scaling::Strong, Scaling::Weak]) {
        let mine: Vec<(&String, &Vec<Point>)> = curves
            .iter()
            .filter(|((m, _), _)| *m == mode)
            .map(|((_, k), v)| (k, v))
            .collect();
        let max_ranks = mine
            .iter()
            .flat_map(|(_, v)| v.iter().map(|p| p.ranks))
            .max()
            .unwrap_or(1);
        let max_ms = mine
            .iter()
            .flat_map(|(_, v)| v.iter().map(|p| p.run_s * 1e3))
            .fold(0.0, f64::max)
            .max(1e-3);
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{} scaling", mode.name()), ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..max_ranks as f64 + 0.5, 0.0..max_ms * 1.15)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("ranks")
            .y_desc("ms per run")
            .x_labels(max_ranks.min(16))
            .x_label_formatter(&|v: &f64| format!("{v:.0}"))
            .draw()
            .map_err(e)?;
        for (i, (key, points)) in mine.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let at = |f: fn(&Point) -> f64| -> Vec<(f64, f64)> {
                points
                    .iter()
                    .map(|p| (p.ranks as f64, f(p) * 1e3))
                    .collect()
            };
            chart
                .draw_series(LineSeries::new(at(|p| p.run_s), color.stroke_width(2)))
                .map_err(e)?
                .label(key.to_string())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(PointSeries::of_element(
                    at(|p| p.run_s),
                    4,
                    color.filled(),
                    &|c, s, st| Circle::new(c, s, st),
                ))
                .map_err(e)?;
            chart
                .draw_series(LineSeries::new(at(|p| p.comm_s), color.mix(0.5)))
                .map_err(e)?
                .label(format!("{key}: pack + transfer + exchange"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.mix(0.5)));
        }
        if !mine.is_empty() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .label_font(("sans-serif", 11))
                .draw()
                .map_err(e)?;
        }
    }
    area.present().map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use skylight_core::Precision;
    use skylight_core::app::{Case, Model, Validation};
    use skylight_core::runner::cpu_platform;
    use skylight_core::scale::{Decomposition, PhaseTimes, ScaleOut};
    use skylight_core::timing::TimingMethod;

    fn record(scaling: Scaling, ranks: usize, run_s: f64) -> ResultRecord {
        let case = Case::new("lbm", "step", "soa", Precision::F32).param("L", 8);
        let mut r = ResultRecord::new(
            case,
            cpu_platform(),
            TimingMethod::WallClock,
            vec![run_s],
            Model::default(),
            Validation::fail(String::new()),
            BTreeMap::new(),
        );
        let global = scaling.global([8, 8, 8], ranks);
        r.scale = Some(ScaleOut {
            ranks,
            scaling,
            overlap: false,
            axes: 1,
            decomposition: Decomposition::plan("z", &global, ranks, 1).expect("plan"),
            split: PhaseTimes::from_array([run_s / 2.0, 0.0, 0.0, run_s / 2.0, 0.0]),
        });
        r
    }

    #[test]
    fn efficiency_is_against_the_fewest_ranks_of_each_mode() {
        let records = [
            record(Scaling::Strong, 4, 2.0),
            record(Scaling::Strong, 1, 4.0),
            record(Scaling::Strong, 2, 2.5),
            record(Scaling::Weak, 1, 1.0),
            record(Scaling::Weak, 2, 1.25),
        ];
        let c = curves(&records);
        assert_eq!(c.len(), 2);
        let strong: Vec<(usize, f64)> = c
            .iter()
            .find(|((m, _), _)| *m == Scaling::Strong)
            .map(|(_, v)| v.iter().map(|p| (p.ranks, p.efficiency)).collect())
            .expect("a strong curve");
        assert_eq!(strong, [(1, 1.0), (2, 0.8), (4, 0.5)]);
        let weak = c
            .iter()
            .find(|((m, _), _)| *m == Scaling::Weak)
            .expect("weak");
        assert_eq!(weak.1[1].efficiency, 0.8);
        assert_eq!(weak.1[1].exchange_s, 0.625);
    }
}
