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
use skylight_core::report::{SCALING_STYLES, ScalingLines, color, scaling_axes};
use skylight_core::scale::Scaling;
use skylight_core::scale::curves::{Curves, Point, curves, short_names};

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
    let w = case_width(curves);
    println!(
        "{:<7} {:<w$} {:>5} {:>12} {:>8} {:>8} {:>9} {:>9} {:>6}",
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
                "{:<7} {:<w$} {:>5} {:>9.3} ms {speedup:>8} {eff:>8} {:>8.0}% {:>8.0}% {:>5.0}%",
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
                "{:<7} {:<w$} base: {} at {:.3} ms on one GPU without MPI",
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
    let w = case_width(curves);
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
                "{:<7} {:<w$} {:>5}  {}",
                mode.name(),
                case,
                p.ranks,
                phases.join(", ")
            );
        }
    }
}

/// The case column's width: the longest case, at least 44 characters, so
/// that the columns after it line up.
fn case_width(curves: &Curves) -> usize {
    curves
        .keys()
        .map(|(_, k)| k.chars().count())
        .fold(44, usize::max)
}

/// A panel's width, its plot's left edge, top edge and size, px.
const PANEL_W: f64 = 550.0;
const LEFT: f64 = 84.0;
const TOP: f64 = 36.0;
const PLOT_W: f64 = PANEL_W - LEFT - 20.0;
const PLOT_H: f64 = 300.0;

/// The lines' widths and dashes (dash, gap; none for solid), in the order
/// of core's [`SCALING_STYLES`]: the runs, their communication, the base
/// and the ideal from it.
const STYLES: [(u32, Option<(u32, u32)>); 3] = [(2, None), (1, Some((6, 4))), (1, Some((2, 3)))];

/// A curve: its case and its points by rank count.
type Curve<'a> = (&'a String, &'a Vec<Point>);

/// The panels of the modes that have curves, as the report draws them,
/// and the legend under them: each curve in its colour and precision's
/// marker, named by what tells it apart, then the line styles, then the
/// words every curve's name has.
struct Chart<'a> {
    /// (mode, its curves) per panel.
    panels: Vec<(Scaling, Vec<Curve<'a>>)>,
    /// The legend's texts (wrapped): each curve in panel order, then the
    /// styles, then the shared words.
    texts: Vec<String>,
    /// How many of the styles the legend keys (the base's only where a
    /// curve has one).
    styles: usize,
    /// (swatch's left edge, centre line) of each text.
    places: Vec<(f64, f64)>,
    height: f64,
}

/// One panel per scaling mode: time per run (solid, with markers, on a
/// log axis), its communication part (dashed) and, where a single-GPU run
/// is loaded, that run at one rank (hollow) and the ideal from it
/// (dotted) against ranks.
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
    let keys: Vec<String> = curves.keys().map(|(_, k)| k.clone()).collect();
    let (names, common) = short_names(&keys);
    let width = PANEL_W * panels.len() as f64;
    let wrap = |t: &str| chart::wrap(t, width - 70.0);
    let mut texts = Vec::new();
    for ((mode, _), name) in curves.keys().zip(&names) {
        texts.push(wrap(&format!("{} {name}", mode.name()))?);
    }
    let based = curves.values().flatten().any(|p| p.base.is_some());
    let styles = if based { 3 } else { 2 };
    texts.extend(SCALING_STYLES[..styles].iter().map(|t| t.to_string()));
    if !common.is_empty() {
        texts.push(wrap(&format!("all: {common}"))?);
    }
    let first = TOP + PLOT_H + 56.0 + ROW / 2.0;
    let (places, last) = chart::flow(&texts, 16.0, width - 10.0, first)?;
    let chart = Chart {
        panels,
        texts,
        styles,
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
        let lines: Vec<ScalingLines> = mine
            .iter()
            .map(|(_, v)| ScalingLines::of(v, *mode))
            .collect();
        let (x, y) = scaling_axes(&lines, (ox + LEFT, TOP, PLOT_W, PLOT_H));
        let title = format!("{} scaling", mode.name());
        let centre = (ox + LEFT + PLOT_W / 2.0, 16.0);
        chart::text(area, &title, (HEADING, &INK), HPos::Center, centre)?;
        chart::frame(area, (&x, &y), "ranks", "ms per run (log)")?;
        for (i, ((_, points), l)) in mine.iter().zip(&lines).enumerate() {
            let colour = rgb(color(first + i));
            let px = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
                pts.iter().map(|&(r, ms)| (x.px(r), y.px(ms))).collect()
            };
            for (pts, (width, dash)) in [&l.run, &l.comm, &l.ideal].into_iter().zip(STYLES) {
                rule(area, &px(pts), colour.stroke_width(width), dash)?;
            }
            let precision = points.first().map_or(Precision::F32, |p| p.precision);
            if let Some(&(1.0, ms)) = l.ideal.first() {
                chart::hollow_marker(area, precision, (x.px(1.0), y.px(ms)), colour)?;
            }
            for at in px(&l.run) {
                marker(area, precision, at, colour)?;
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
        let curves: Vec<Precision> = self
            .panels
            .iter()
            .flat_map(|(_, mine)| mine.iter())
            .map(|(_, v)| v.first().map_or(Precision::F32, |p| p.precision))
            .collect();
        for (i, (t, &(cx, cy))) in self.texts.iter().zip(&self.places).enumerate() {
            match (curves.get(i), i.checked_sub(curves.len())) {
                (Some(p), _) => marker(area, *p, (cx + 10.0, cy), rgb(color(i)))?,
                (None, Some(s)) if s < self.styles => {
                    let (width, dash) = STYLES[s];
                    let line = [(cx, cy), (cx + 20.0, cy)];
                    rule(area, &line, GREY.stroke_width(width), dash)?;
                }
                // The words all curves share: no swatch.
                (None, _) => {}
            }
            entry_text(area, t, (cx, cy))?;
        }
        area.present().map_err(chart::failed)
    }
}
