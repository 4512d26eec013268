//! `skylight scaling`: the strong and weak scaling of scale-out result
//! files (written by `mpirun -np N skylight run ...`) as a table and a
//! chart: time per run against ranks, with the part spent swapping halos.
//! Reading files needs no MPI, so this is in every build.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use clap::Args;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use skylight_core::Precision;
use skylight_core::report::{Axis, color};
use skylight_core::scale::Scaling;
use skylight_core::scale::curves::{Curves, Point, curves};

use crate::chart::{self, Area, Figure, GREY, HEADING, INK, ROW, entry_text, marker, rgb, rule};

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
/// decomposition's shares of a run; then where each run's time goes.
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
    print_phases(curves);
}

/// Where each point's run goes, in ms: its phases as finely as its file
/// has them, in the order a step meets them.
fn print_phases(curves: &Curves) {
    println!("where a run goes (ms; \"hidden\" ran during the swap, counted in its phase):");
    for ((mode, case), points) in curves {
        for p in points {
            let phases: Vec<String> = p
                .split
                .breakdown()
                .iter()
                .map(|(name, v)| format!("{name} {:.3}", v * 1e3))
                .collect();
            println!(
                "{:<7} {:<44} {:>5}  {}",
                mode.name(),
                case,
                p.ranks,
                phases.join(", ")
            );
        }
    }
}

/// A panel's width, its plot's left edge, top edge and size, px.
const PANEL_W: f64 = 550.0;
const LEFT: f64 = 84.0;
const TOP: f64 = 36.0;
const PLOT_W: f64 = PANEL_W - LEFT - 20.0;
const PLOT_H: f64 = 300.0;

/// A curve's line: its width, its dash (dash, gap; none for solid) and
/// what it shows.
struct Style {
    width: u32,
    dash: Option<(u32, u32)>,
    text: &'static str,
}

/// The lines of each curve, keyed once under the panels.
const STYLES: [Style; 3] = [
    Style {
        width: 2,
        dash: None,
        text: "time of a run",
    },
    Style {
        width: 1,
        dash: Some((6, 4)),
        text: "pack + transfer + exchange",
    },
    Style {
        width: 1,
        dash: Some((2, 3)),
        text: "ideal from one GPU without MPI",
    },
];

/// A curve: its case and its points by rank count.
type Curve<'a> = (&'a String, &'a Vec<Point>);

/// The panels of the modes that have curves, as the report draws them,
/// and the legend under them: colour per curve, and the line styles.
struct Chart<'a> {
    /// (mode, its curves) per panel.
    panels: Vec<(Scaling, Vec<Curve<'a>>)>,
    /// The legend's texts: each curve in panel order, then the styles.
    texts: Vec<String>,
    /// (swatch's left edge, centre line) of each text.
    places: Vec<(f64, f64)>,
    height: f64,
}

/// One panel per scaling mode: time per run (solid, with markers), its
/// communication part (dashed) and, where a single-GPU run is loaded, the
/// ideal from it (dotted) against ranks.
fn draw(curves: &Curves, path: &Path) -> Result<()> {
    chart::register_font()?;
    let panels: Vec<(Scaling, Vec<Curve>)> = [Scaling::Strong, Scaling::Weak]
        .into_iter()
        .map(|mode| {
            let mine: Vec<Curve> = curves
                .iter()
                .filter(|((m, _), _)| *m == mode)
                .map(|((_, k), v)| (k, v))
                .collect();
            (mode, mine)
        })
        .filter(|(_, mine)| !mine.is_empty())
        .collect();
    let ideal = curves.values().flatten().any(|p| p.base.is_some());
    let mut texts: Vec<String> = panels
        .iter()
        .flat_map(|(mode, mine)| {
            mine.iter()
                .map(move |(k, _)| format!("{} {k}", mode.name()))
        })
        .collect();
    let styles = if ideal { 3 } else { 2 };
    texts.extend(STYLES[..styles].iter().map(|s| s.text.to_string()));
    let width = PANEL_W * panels.len() as f64;
    let first = TOP + PLOT_H + 56.0 + ROW / 2.0;
    let (places, last) = chart::flow(&texts, 16.0, width - 10.0, first)?;
    let chart = Chart {
        panels,
        texts,
        places,
        height: last + ROW,
    };
    chart::save(&chart, path)
}

impl Chart<'_> {
    /// The panel of `mode` at `ox`: its frame and curves, the `first`
    /// colour of the palette onwards.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        (mode, mine): &(Scaling, Vec<Curve>),
        ox: f64,
        first: usize,
    ) -> Result<()> {
        let max_ranks = mine
            .iter()
            .flat_map(|(_, v)| v.iter().map(|p| p.ranks))
            .max()
            .unwrap_or(1);
        let max_ms = mine
            .iter()
            .flat_map(|(_, v)| v.iter().map(|p| p.run_s * 1e3))
            .fold(1e-3, f64::max);
        let plot = (ox + LEFT, TOP, PLOT_W, PLOT_H);
        let (x, y) = Axis::counts_against(max_ranks, max_ms * 1.1, plot);
        let title = format!("{} scaling", mode.name());
        let centre = (ox + LEFT + PLOT_W / 2.0, 16.0);
        chart::text(area, &title, (HEADING, &INK), HPos::Center, centre)?;
        chart::frame(area, (&x, &y), "ranks", "ms per run")?;
        for (i, (_, points)) in mine.iter().enumerate() {
            let colour = rgb(color(first + i));
            let line = |f: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
                points
                    .iter()
                    .filter_map(|p| f(p).map(|v| (x.px(p.ranks as f64), y.px(v))))
                    .collect()
            };
            let curves = [
                line(&|p| Some(p.run_s * 1e3)),
                line(&|p| Some(p.comm_s * 1e3)),
                line(&|p| ideal(p, *mode)),
            ];
            for (pts, s) in curves.iter().zip(&STYLES) {
                rule(area, pts, colour.stroke_width(s.width), s.dash)?;
            }
            for &at in &curves[0] {
                marker(area, Precision::F32, at, colour)?;
            }
        }
        Ok(())
    }
}

impl Figure for Chart<'_> {
    fn size(&self) -> (u32, u32) {
        (
            (PANEL_W * self.panels.len() as f64) as u32,
            self.height as u32,
        )
    }

    fn render<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()> {
        area.fill(&WHITE).map_err(chart::failed)?;
        let mut first = 0;
        for (i, panel) in self.panels.iter().enumerate() {
            self.panel(area, panel, PANEL_W * i as f64, first)?;
            first += panel.1.len();
        }
        for (i, (t, &(cx, cy))) in self.texts.iter().zip(&self.places).enumerate() {
            match i.checked_sub(first) {
                None => {
                    let square = [
                        chart::at(cx + 4.0, cy - 6.0),
                        chart::at(cx + 16.0, cy + 6.0),
                    ];
                    let fill = rgb(color(i)).filled();
                    area.draw(&Rectangle::new(square, fill))
                        .map_err(chart::failed)?;
                }
                Some(s) => {
                    let line = [(cx, cy), (cx + 20.0, cy)];
                    rule(
                        area,
                        &line,
                        GREY.stroke_width(STYLES[s].width),
                        STYLES[s].dash,
                    )?;
                }
            }
            entry_text(area, t, (cx, cy))?;
        }
        area.present().map_err(chart::failed)
    }
}

/// The ideal from one GPU without MPI, in ms: its time over the ranks
/// (strong), or its time (weak: each rank's share is its problem); none
/// without a base.
fn ideal(p: &Point, mode: Scaling) -> Option<f64> {
    let base = p.base.as_ref()?.run_s * 1e3;
    Some(match mode {
        Scaling::Strong => base / p.ranks as f64,
        Scaling::Weak => base,
    })
}
