//! The scaling view's table: one row per point of each shown curve, with
//! its speed-up and efficiencies and the phase split of one run.

use eframe::egui::{self, Color32, RichText};
use skylight_core::scale::Scaling;
use skylight_core::scale::curves::Point;

use crate::scaling;

/// One curve's rows: its legend name, colour, mode and points.
pub(super) struct Rows<'a> {
    pub name: &'a str,
    pub color: Color32,
    pub mode: Scaling,
    pub points: &'a [Point],
}

/// One row per point of every curve of `curves`: ranks, run, efficiency
/// and the phase split of one run, in ms.
pub(super) fn table<'a>(ui: &mut egui::Ui, curves: impl Iterator<Item = Rows<'a>>) {
    const HEADS: [(&str, &str); 12] = [
        (
            "curve",
            "the curve's name, less the words every curve shares",
        ),
        ("ranks", "MPI ranks, one device each (or sharing one)"),
        (
            "run ms",
            "median time of one run; the phases are means per run, the slowest rank's",
        ),
        (
            "vs 1 GPU",
            "speed-up over the best single-GPU run of the problem without MPI (weak: of one rank's share, times ranks), where its file is loaded",
        ),
        ("eff. 1 GPU", "that speed-up over ranks"),
        (
            "eff. MPI",
            "strong: T1 N1 / (TN N); weak: T1 / TN, against the curve's fewest ranks (an MPI run, which pays the host-staged swap itself)",
        ),
        (
            "compute",
            "the app's kernels, ms per run (mean, slowest rank)",
        ),
        (
            "hidden",
            "of the compute, what ran while the halos travelled",
        ),
        ("pack", "packing and unpacking the halo planes on the GPU"),
        ("transfer", "halo planes device to host and back"),
        ("exchange", "the swap between ranks, waiting included"),
        (
            "comm.",
            "pack + transfer + exchange - hidden: its share of the run",
        ),
    ];
    egui::ScrollArea::both()
        .id_salt("scaling-table")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Grid::new("scaling-grid")
                .striped(true)
                .min_col_width(48.0)
                .show(ui, |ui| {
                    for (head, why) in HEADS {
                        ui.strong(head).on_hover_text(why);
                    }
                    ui.end_row();
                    for c in curves {
                        for (i, p) in c.points.iter().enumerate() {
                            let name = if i == 0 { c.name } else { "" };
                            ui.label(RichText::new(name).color(c.color).strong());
                            row(ui, p, c.mode);
                            ui.end_row();
                        }
                    }
                });
        });
}

/// The numbers of one point, right-aligned by a monospace font.
fn row(ui: &mut egui::Ui, p: &Point, mode: Scaling) {
    let t = p.split;
    let cells = [
        format!("{:>4}", p.ranks),
        format!("{:>7}", scaling::ms(p.run_s)),
        p.speedup(mode).map_or("-".into(), |s| format!("{s:>5.2}x")),
        p.base_efficiency(mode)
            .map_or("-".into(), |e| format!("{:>4.0}%", e * 100.0)),
        format!("{:>4.0}%", p.efficiency * 100.0),
        format!("{:>7}", scaling::ms(t.compute_s)),
        format!("{:>7}", scaling::ms(t.overlap_s)),
        format!("{:>7}", scaling::ms(t.pack_s)),
        format!("{:>7}", scaling::ms(t.transfer_s)),
        format!("{:>7}", scaling::ms(t.exchange_s)),
        format!("{:>4.0}%", p.comm_share() * 100.0),
    ];
    for c in cells {
        ui.label(RichText::new(c).monospace());
    }
}
