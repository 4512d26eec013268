//! The scaling view: the loaded scale-out results (`mpirun -np N skylight
//! run ... --json`) as strong or weak scaling curves, one source (a folder
//! of one device's files, see [`crate::scaling::Source`]) or all at once:
//! time per run, its communication part and the ideal from the single-GPU
//! run without MPI against ranks, parallel efficiency against ranks, and
//! a table of each point's phase split (`scaling_table`).
//! `skylight scaling` prints and draws the same curves (core's
//! [`skylight_core::scale::curves`]).
//!
//! The curves are grouped once per results generation; what the plots draw
//! is laid out once per choice of source and mode.

use std::collections::BTreeSet;

use eframe::egui::{self, Color32, RichText};
use egui_plot::{
    GridInput, HLine, HoverPosition, Line, LineStyle, MarkerShape, Plot, PlotPoint, Points,
};
use skylight_core::report::ScalingLines;
use skylight_core::scale::Scaling;
use skylight_core::scale::curves::{self, Point};

use super::scaling_table::{Rows, table};
use crate::palette::{precision_marker, series_color};
use crate::plot;
use crate::scaling::{self, ScalingData, rank_x};
use crate::state::Snapshot;

/// What the view says before any scale-out result is loaded.
const NONE_LOADED: &str = "No loaded file has scale-out results. Run lbm or milc over MPI ranks \
     with the CLI built with `--features mpi` (README, \"Scale-out (MPI)\"), one file per rank \
     count in one folder, then load the files here, drop them on the window or give them on the \
     command line (`skylight-desktop --scaling DIR/*.json`):";

/// The commands [`NONE_LOADED`] suggests.
const MPIRUN: &str =
    "mpirun -np 1 skylight run lbm --size 64 --kernel step --json runs/strong-1.json
mpirun -np 2 skylight run lbm --size 64 --kernel step --json runs/strong-2.json
mpirun -np 4 skylight run lbm --size 64 --kernel step --json runs/strong-4.json
mpirun -np 4 skylight run lbm --size 64 --kernel step --scaling weak --json runs/weak-4.json";

/// Colour of the ideal efficiency line.
const IDEAL: Color32 = Color32::from_gray(140);

/// What the menus choose: a source (`None`: every source) and a mode.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Choice {
    source: Option<usize>,
    mode: Scaling,
}

/// One curve as the plots draw it.
struct Shown {
    /// Legend name: the curve's name less the words all shown curves share.
    name: String,
    /// The whole name, which the choice of hidden curves keeps.
    full: String,
    /// Ticked in the legend.
    visible: bool,
    color: Color32,
    shape: MarkerShape,
    /// Per point, in ranks order: time per run and its communication part
    /// (log2 ranks, log10 ms), and the efficiency (log2 ranks, fraction)
    /// against the curve's fewest ranks (an MPI run) and, where its run is
    /// loaded, against the best single-GPU run without MPI.
    run: Vec<PlotPoint>,
    comm: Vec<PlotPoint>,
    /// The ideal from the best single-GPU run without MPI, where loaded
    /// (log2 ranks, log10 ms), from that run at one rank.
    ideal: Vec<PlotPoint>,
    efficiency: Vec<PlotPoint>,
    base_efficiency: Vec<PlotPoint>,
    /// The scaling mode (speed-ups over one GPU read it).
    mode: Scaling,
    /// Hover text of each of `points`.
    hover: Vec<String>,
    points: Vec<Point>,
}

/// What the plots and the table draw for one choice.
#[derive(Default)]
struct Scene {
    shown: Vec<Shown>,
    /// The words every shown curve's name has, said once above the plots.
    common: String,
    /// The rank axis (log2) and the time axis (log10 ms) to include.
    x_range: (f64, f64),
    y_range: (f64, f64),
    /// The highest efficiency, so the efficiency axis shows it.
    top_efficiency: f64,
}

impl Scene {
    fn build(data: &ScalingData, choice: Choice) -> Scene {
        let curves: Vec<_> = data.select(choice.source, choice.mode).collect();
        let every = choice.source.is_none();
        let keys: Vec<String> = curves.iter().map(|c| c.key.clone()).collect();
        let (short, common) = curves::short_names(&keys);
        let shown: Vec<Shown> = curves
            .iter()
            .zip(short)
            .enumerate()
            .map(|(i, (c, short))| {
                let full = data.label(c, every);
                let name = match data.sources.get(c.source) {
                    Some(s) if every => format!("{short} @ {}", s.label()),
                    _ => short,
                };
                let at = |f: fn(&Point) -> f64| -> Vec<PlotPoint> {
                    c.points
                        .iter()
                        .filter_map(|p| {
                            Some(PlotPoint::new(rank_x(p.ranks), plot::to_log(f(p) * 1e3)?))
                        })
                        .collect()
                };
                let ideal = ScalingLines::of(&c.points, choice.mode).ideal;
                Shown {
                    color: series_color(i),
                    shape: precision_marker(c.precision),
                    run: at(|p| p.run_s),
                    comm: at(|p| p.comm_s),
                    ideal: ideal
                        .iter()
                        .filter_map(|&(r, ms)| Some(PlotPoint::new(r.log2(), plot::to_log(ms)?)))
                        .collect(),
                    efficiency: c
                        .points
                        .iter()
                        .map(|p| PlotPoint::new(rank_x(p.ranks), p.efficiency))
                        .collect(),
                    base_efficiency: c
                        .points
                        .iter()
                        .filter_map(|p| {
                            let e = p.base_efficiency(choice.mode)?;
                            Some(PlotPoint::new(rank_x(p.ranks), e))
                        })
                        .collect(),
                    mode: choice.mode,
                    hover: c
                        .points
                        .iter()
                        .map(|p| hover_text(&full, choice.mode, p))
                        .collect(),
                    points: c.points.clone(),
                    full,
                    visible: true,
                    name,
                }
            })
            .collect();
        let (x0, x1) = span(shown.iter().flat_map(|s| s.efficiency.iter().map(|p| p.x)));
        let (y0, y1) = span(
            shown
                .iter()
                .flat_map(|s| s.run.iter().chain(&s.comm).chain(&s.ideal).map(|p| p.y)),
        );
        let top_efficiency = shown
            .iter()
            .flat_map(|s| s.efficiency.iter().chain(&s.base_efficiency).map(|p| p.y))
            .fold(1.0, f64::max);
        Scene {
            shown,
            common,
            x_range: (x0 - 0.25, x1 + 0.25),
            // A little room above and below the extreme points (in decades).
            y_range: (y0 - 0.1, y1 + 0.1),
            top_efficiency,
        }
    }

    /// The curves ticked in the legend.
    fn visible(&self) -> impl Iterator<Item = &Shown> {
        self.shown.iter().filter(|s| s.visible)
    }

    /// The hover text of the point nearest the pointer: found by its rank
    /// count, as a point a log axis cannot show (no time) shifts the
    /// indices of the line's points.
    fn hover(&self, pos: &HoverPosition<'_>) -> Option<String> {
        let HoverPosition::NearDataPoint {
            plot_name,
            position,
            ..
        } = pos
        else {
            return None;
        };
        let s = self.shown.iter().find(|s| s.name == *plot_name)?;
        let nearest = s.points.iter().zip(&s.hover).min_by(|a, b| {
            let d = |p: &Point| (rank_x(p.ranks) - position.x).abs();
            d(a.0).total_cmp(&d(b.0))
        });
        nearest.map(|(_, text)| text.clone())
    }
}

/// The smallest and largest of `values`; (0, 1) when there are none, so
/// the axes keep a sane range while every curve is hidden or empty.
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// What hovering a point of `curve` (its full name) says.
fn hover_text(curve: &str, mode: Scaling, p: &Point) -> String {
    let t = p.split;
    let base = match (&p.base, p.speedup(mode), p.base_efficiency(mode)) {
        (Some(b), Some(s), Some(e)) => format!(
            "{s:.2}x one GPU without MPI ({}, {} ms): efficiency {:.0}%\n",
            b.label,
            scaling::ms(b.run_s),
            e * 100.0
        ),
        _ => "no single-GPU run without MPI loaded\n".to_string(),
    };
    let phases: Vec<String> = t
        .breakdown()
        .iter()
        .map(|(name, v)| format!("{name} {} ms", scaling::ms(*v)))
        .collect();
    format!(
        "{curve} ({} scaling)\n{base}{} ranks: {} ms per run, efficiency {:.0}% against the fewest ranks\n\
         {}\n\
         communication {} ms, {:.0}% of the run",
        mode.name(),
        p.ranks,
        scaling::ms(p.run_s),
        p.efficiency * 100.0,
        phases.join(", "),
        scaling::ms(p.comm_s),
        p.comm_share() * 100.0
    )
}

/// The scaling view's choices and what it derived for them.
#[derive(Default)]
pub struct ScalingView {
    data: ScalingData,
    /// The results generation `data` comes from.
    built: Option<u64>,
    choice: Option<Choice>,
    /// The last scene and the choice it shows.
    scene: Option<(Choice, Scene)>,
    /// The full names of the curves unticked in the legend, kept across
    /// choices and reloads.
    hidden: BTreeSet<String>,
}

impl ScalingView {
    /// Draws the menus, both plots and the table of the chosen curves.
    pub fn show(&mut self, ui: &mut egui::Ui, now: &Snapshot<'_>) {
        if self.built != Some(now.generation) {
            self.data = ScalingData::build(now.loaded);
            self.scene = None;
            self.built = Some(now.generation);
        }
        if self.data.curves.is_empty() {
            ui.label(NONE_LOADED);
            ui.add_space(4.0);
            ui.code(MPIRUN);
            return;
        }
        let choice = self.menus(ui);
        if self.scene.as_ref().is_none_or(|(c, _)| *c != choice) {
            self.scene = Some((choice, Scene::build(&self.data, choice)));
        }
        let Some((_, scene)) = &mut self.scene else {
            return;
        };
        legend(ui, scene, &mut self.hidden);
        let height = (ui.available_height() * 0.58).max(200.0);
        ui.columns(2, |cols| {
            time_plot(&mut cols[0], scene, height);
            efficiency_plot(&mut cols[1], scene, height);
        });
        ui.separator();
        let rows = scene.visible().map(|s| Rows {
            name: &s.name,
            color: s.color,
            mode: s.mode,
            points: &s.points,
        });
        table(ui, rows);
    }

    /// The source and mode menus; returns the choice, made valid.
    fn menus(&mut self, ui: &mut egui::Ui) -> Choice {
        let data = &self.data;
        let mut c = self.choice.unwrap_or(Choice {
            source: Some(0),
            mode: Scaling::Strong,
        });
        if c.source.is_some_and(|s| s >= data.sources.len()) {
            c.source = Some(0);
        }
        ui.horizontal(|ui| {
            ui.label("runs");
            let label = |s: Option<usize>| {
                s.and_then(|s| data.sources.get(s))
                    .map_or_else(|| "every folder".to_string(), |s| s.label())
            };
            egui::ComboBox::from_id_salt("scaling-source")
                .selected_text(label(c.source))
                .show_ui(ui, |ui| {
                    // "Every folder" only where there are several.
                    let every = (data.sources.len() > 1).then_some(None);
                    for s in (0..data.sources.len()).map(Some).chain(every) {
                        ui.selectable_value(&mut c.source, s, label(s));
                    }
                })
                .response
                .on_hover_text("the result files of one folder and device make one set of curves");
            let modes = data.modes(c.source);
            if !modes.contains(&c.mode) {
                c.mode = modes.first().copied().unwrap_or_default();
            }
            ui.separator();
            for m in [Scaling::Strong, Scaling::Weak] {
                let text = match m {
                    Scaling::Strong => "strong: one lattice split over the ranks",
                    Scaling::Weak => "weak: one lattice per rank",
                };
                ui.add_enabled_ui(modes.contains(&m), |ui| {
                    ui.radio_value(&mut c.mode, m, m.name()).on_hover_text(text);
                });
            }
        });
        self.choice = Some(c);
        c
    }
}

/// The legend both plots and the table share, above them (a legend inside
/// a plot would cover its curves): one checkbox per curve in its colour,
/// then the words every curve's name has.
fn legend(ui: &mut egui::Ui, scene: &mut Scene, hidden: &mut BTreeSet<String>) {
    // Three rows at most: a long legend scrolls rather than squeeze the plots.
    egui::ScrollArea::vertical()
        .id_salt("scaling-legend")
        .max_height(70.0)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for s in &mut scene.shown {
                    s.visible = !hidden.contains(&s.full);
                    let text = RichText::new(&s.name).color(s.color);
                    let tick = ui.checkbox(&mut s.visible, text).on_hover_text(&s.full);
                    if tick.changed() && s.visible {
                        hidden.remove(&s.full);
                    } else if tick.changed() {
                        hidden.insert(s.full.clone());
                    }
                }
                if !scene.common.is_empty() {
                    ui.label(format!("(every curve: {})", scene.common));
                }
            });
        });
}

/// A plot against ranks (log2 axis over the scene's rank range), with
/// `y_label` up its side: what both panels share.
fn rank_plot<'a>(id: &str, scene: &Scene, height: f32, y_label: &str) -> Plot<'a> {
    Plot::new(id)
        .height(height)
        .x_axis_label("ranks")
        .y_axis_label(y_label)
        .x_grid_spacer(|g: GridInput| scaling::rank_marks(g.bounds, g.base_step_size))
        .x_axis_formatter(|mark, _| scaling::rank_label(mark.value))
        .include_x(scene.x_range.0)
        .include_x(scene.x_range.1)
}

/// Time per run (solid, filled markers), its communication part (dashed,
/// hollow) and, where loaded, the ideal from the single-GPU run without
/// MPI at one rank (dotted) against ranks, both axes logarithmic.
fn time_plot(ui: &mut egui::Ui, scene: &Scene, height: f32) {
    rank_plot(
        "scaling-time",
        scene,
        height,
        "ms a run (dashed: comm.; dotted: ideal)",
    )
    .y_grid_spacer(|g: GridInput| scaling::log_marks(g.bounds))
    .y_axis_formatter(|mark, _| scaling::log_label(mark.value))
    .include_y(scene.y_range.0)
    .include_y(scene.y_range.1)
    .label_formatter(|pos| {
        scene.hover(pos).or_else(|| match pos {
            HoverPosition::Elsewhere { position } => Some(format!(
                "{:.1} ranks, {} ms",
                position.x.exp2(),
                scaling::ms(plot::from_log(position.y) / 1e3)
            )),
            HoverPosition::NearDataPoint { .. } => None,
        })
    })
    .show(ui, |pui| {
        for s in scene.visible() {
            let (run, comm) = (s.run.as_slice(), s.comm.as_slice());
            pui.line(Line::new(s.name.as_str(), run).color(s.color).width(2.0));
            pui.points(points(s, run, true));
            pui.line(
                Line::new(s.name.as_str(), comm)
                    .color(s.color)
                    .style(LineStyle::dashed_dense())
                    .width(1.5),
            );
            pui.points(points(s, comm, false));
            let ideal = Line::new(s.name.as_str(), s.ideal.as_slice()).color(s.color);
            pui.line(ideal.style(LineStyle::dotted_dense()).width(1.5));
        }
    });
}

/// Parallel efficiency against ranks, the ideal at 100%: against the best
/// single-GPU run without MPI (solid, where loaded) and against the
/// curve's fewest ranks (dashed).
fn efficiency_plot(ui: &mut egui::Ui, scene: &Scene, height: f32) {
    rank_plot("scaling-efficiency", scene, height, "parallel efficiency")
        .y_grid_spacer(|g: GridInput| scaling::percent_marks(g.bounds))
        .y_axis_formatter(|mark, _| format!("{:.0}%", mark.value * 100.0))
        .include_y(0.0)
        .include_y(scene.top_efficiency * 1.08)
        .label_formatter(|pos| {
            scene.hover(pos).or_else(|| match pos {
                HoverPosition::Elsewhere { position } => Some(format!(
                    "{:.1} ranks, {:.0}%",
                    position.x.exp2(),
                    position.y * 100.0
                )),
                HoverPosition::NearDataPoint { .. } => None,
            })
        })
        .show(ui, |pui| {
            pui.hline(
                HLine::new("ideal", 1.0)
                    .color(IDEAL)
                    .style(LineStyle::dashed_loose()),
            );
            for s in scene.visible() {
                let e = s.efficiency.as_slice();
                let mpi = Line::new(s.name.as_str(), e).color(s.color);
                pui.line(mpi.width(1.0).style(LineStyle::dashed_dense()));
                pui.points(points(s, e, false));
                let b = s.base_efficiency.as_slice();
                pui.line(Line::new(s.name.as_str(), b).color(s.color).width(2.0));
                pui.points(points(s, b, true));
            }
        });
}

/// The markers of one of `s`'s lines.
fn points<'a>(s: &Shown, at: &'a [PlotPoint], filled: bool) -> Points<'a> {
    Points::new(s.name.as_str(), at)
        .color(s.color)
        .shape(s.shape)
        .filled(filled)
        .radius(4.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_plot::PlotPoint;

    #[test]
    fn scene_names_curves_by_what_differs_and_hovers_by_rank() {
        let loaded = scaling::committed(&[
            "benchmarks/lavapipe-mpi-2026-11-23",
            "benchmarks/nvidia-h200x2-mpi-2026-11-23",
        ]);
        let data = ScalingData::build(&loaded);
        let one = Scene::build(
            &data,
            Choice {
                source: Some(0),
                mode: Scaling::Weak,
            },
        );
        // A single curve keeps its whole name.
        assert_eq!(one.shown.len(), 1);
        assert_eq!(one.shown[0].name, "lbm/step soa/vvl1/wg128 f32 L=16");
        let near = |name: &str, x: f64| {
            one.hover(&HoverPosition::NearDataPoint {
                plot_name: name,
                position: PlotPoint::new(x, 0.0),
                index: 0,
            })
        };
        let text = near(&one.shown[0].name, 1.02).expect("a hover text");
        assert!(
            text.contains("2 ranks: 3.239 ms per run, efficiency 99%"),
            "{text}"
        );
        assert_eq!(near("ideal", 1.0), None);

        let every = Scene::build(
            &data,
            Choice {
                source: None,
                mode: Scaling::Strong,
            },
        );
        let names: Vec<&str> = every.shown.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(
            names[0],
            "f32 L=32 @ benchmarks/lavapipe-mpi-2026-11-23 (llvmpipe (LLVM 15.0.6, 256 bits))"
        );
        assert_eq!(every.common, "lbm/step soa/vvl1/wg128");
        assert!(every.top_efficiency > 1.2, "lavapipe's 2 ranks beat 1");
    }

    /// Beside its single-GPU runs, every curve of the two-H200 set draws
    /// the ideal from one GPU, starting at one rank; without them, none.
    #[test]
    fn the_time_plot_draws_the_ideal_from_one_gpu_where_loaded() {
        let data = ScalingData::build(&scaling::committed(&[
            "benchmarks/reference/nvidia-h200-x2",
        ]));
        let strong = Choice {
            source: Some(0),
            mode: Scaling::Strong,
        };
        let scene = Scene::build(&data, strong);
        assert!(!scene.shown.is_empty());
        for s in &scene.shown {
            assert_eq!(s.ideal.first().map(|p| p.x), Some(0.0), "{}", s.name);
            assert!(s.ideal.len() >= 2, "{}", s.name);
        }
        let lavapipe =
            ScalingData::build(&scaling::committed(&["benchmarks/lavapipe-mpi-2026-11-23"]));
        let scene = Scene::build(&lavapipe, strong);
        assert!(scene.shown.iter().all(|s| s.ideal.is_empty()));
    }
}
