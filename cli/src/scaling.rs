//! `skylight scaling`: the strong and weak scaling of scale-out result
//! files (written by `mpirun -np N skylight run ...`) as a table and a
//! chart: time per run against ranks, with the part spent swapping halos.
//! Reading files needs no MPI, so this is in every build.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use plotters::prelude::*;
use skylight_core::scale::Scaling;
use skylight_core::scale::curves::{Curves, Point, curves};

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// `skylight scaling` arguments.
#[derive(Args)]
pub struct ScalingArgs {
    /// Result files of scale-out runs (1, 2, 4, ... ranks; strong, weak or
    /// both), or folders of them.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the chart here (.svg or .png).
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// Prints the table and draws the chart.
pub fn run(args: &ScalingArgs) -> Result<bool> {
    let records = crate::inputs::records(&args.files)?;
    let curves = curves(&records);
    if curves.is_empty() {
        bail!("no scale-out records in these files (run them under mpirun)");
    }
    print_table(&curves);
    if let Some(path) = &args.plot {
        draw(&curves, path)?;
        eprintln!("scaling chart written to {}", path.display());
    }
    Ok(true)
}

/// The table: per curve and rank count the time of a run, the speed-up
/// and efficiency over the best single-GPU run of the problem without MPI
/// (where the files hold one; its kernel and time follow each curve),
/// the efficiency against the curve's own fewest ranks (an MPI run, which
/// pays the host-staged swap itself), and the exchange's and the whole
/// decomposition's shares of a run.
fn print_table(curves: &Curves) {
    println!(
        "{:<7} {:<44} {:>5} {:>12} {:>8} {:>8} {:>9} {:>9} {:>6}",
        "scaling", "case", "ranks", "run", "vs 1 GPU", "eff.", "eff. MPI", "exchange", "comm."
    );
    let mut unbased = Vec::new();
    for ((mode, case), points) in curves {
        for p in points {
            let speedup = p.speedup(*mode).map_or("-".into(), |s| format!("{s:.2}x"));
            let eff = p
                .base_efficiency(*mode)
                .map_or("-".into(), |e| format!("{:.0}%", 100.0 * e));
            println!(
                "{:<7} {:<44} {:>5} {:>9.3} ms {speedup:>8} {eff:>8} {:>8.0}% {:>8.0}% {:>5.0}%",
                mode.name(),
                case,
                p.ranks,
                p.run_s * 1e3,
                100.0 * p.efficiency,
                100.0 * p.exchange_share(),
                100.0 * p.comm_share()
            );
        }
        match points.first().and_then(|p| p.base.as_ref()) {
            Some(b) => println!(
                "{:<7} {:<44} base: {} at {:.3} ms on one GPU without MPI",
                "",
                "",
                b.label,
                b.run_s * 1e3
            ),
            None => unbased.push(case.as_str()),
        }
    }
    if !unbased.is_empty() {
        println!(
            "note: no single-GPU run without MPI of {} among the files: \"eff. MPI\" is against the curve's fewest ranks; add a plain `skylight run` of the problem for the speed-up over one GPU",
            unbased.join(", ")
        );
    }
}

/// One panel per scaling mode: time per run (solid), its communication
/// part (thin) and, where a single-GPU run is loaded, the ideal from it
/// (dashed) against ranks.
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
        // Room above the data for the legend (a line per series), so no
        // label lies over a curve.
        let series: usize = mine
            .iter()
            .map(|(_, v)| 2 + usize::from(v.iter().any(|p| p.base.is_some())))
            .sum();
        let top = max_ms * (1.15 + 0.09 * series as f64);
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{} scaling", mode.name()), ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..max_ranks as f64 + 0.5, 0.0..top)
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
            let ideal = ideal(points, mode);
            if !ideal.is_empty() {
                let dashed = DashedLineSeries::new(ideal, 6, 4, color.stroke_width(1));
                chart
                    .draw_series(dashed)
                    .map_err(e)?
                    .label(format!("{key}: ideal from one GPU without MPI"))
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            }
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

/// The ideal from one GPU without MPI, in ms against ranks: its time over
/// the ranks (strong), or its time (weak: each rank's share is its
/// problem); empty without a base.
fn ideal(points: &[Point], mode: Scaling) -> Vec<(f64, f64)> {
    points
        .iter()
        .filter_map(|p| {
            let base = p.base.as_ref()?.run_s * 1e3;
            let t = match mode {
                Scaling::Strong => base / p.ranks as f64,
                Scaling::Weak => base,
            };
            Some((p.ranks as f64, t))
        })
        .collect()
}
