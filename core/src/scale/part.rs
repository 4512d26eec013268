//! The sites a kernel is dispatched over: a whole lattice, or the interior
//! or boundary of a rank's padded box. A rank updates its interior while
//! its halos travel and its boundary (the sites that read a halo) once
//! they have arrived, so the swap hides behind the interior's update
//! (`exec`'s [`Op::Swap`](super::exec::Op::Swap) with work `during` it).

use super::Decomposition;
use crate::shader::ShaderSpec;

/// A box of a lattice whose sites run `inner` fastest (the axes below the
/// two slowest), then `ey` along the second slowest axis, then the
/// slowest: `ny` rows from `y0` along the second, `nz` planes from `z0`
/// along the slowest, `dz` apart (1: adjacent), every inner site. The
/// whole lattice of `n` sites is the box of `n` inner sites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Part {
    /// Sites of the axes below the two slowest.
    pub inner: u32,
    /// Extent of the second slowest axis.
    pub ey: u32,
    /// First row along the second slowest axis.
    pub y0: u32,
    /// Rows along it.
    pub ny: u32,
    /// First plane along the slowest axis.
    pub z0: u32,
    /// Planes along it.
    pub nz: u32,
    /// Planes from one of the box's planes to the next: a slab's two
    /// boundary planes are one box (one dispatch, not two in turn).
    pub dz: u32,
    /// The order its sites are dispatched in.
    pub order: Order,
}

/// The order a box's sites are dispatched in, so that sites sharing a
/// neighbour run close in time (the neighbour still in cache): blocks of
/// `block[0]` inner rows of `row` sites (a row stays whole, so a warp's
/// loads stay contiguous) by `block[1]` rows by `block[2]` planes, `group`
/// blocks along the planes together, then the blocks along the inner rows,
/// the rows, and the plane groups. With no blocks and no groups that is
/// storage order, whatever `row`. Each extent divides the box's
/// ([`Part::ordered`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Order {
    /// Sites of an inner row (a divisor of the box's inner sites).
    pub row: u32,
    /// Inner rows, rows and planes of a block.
    pub block: [u32; 3],
    /// Blocks along the planes that run before the next block along the rows.
    pub group: u32,
}

impl Order {
    /// Storage order.
    pub const STORAGE: Order = Order {
        row: 1,
        block: [1, 1, 1],
        group: 1,
    };

    /// Whether this is storage order.
    pub fn is_storage(self) -> bool {
        self.block == [1, 1, 1] && self.group == 1
    }
}

impl Part {
    /// Every one of `sites` sites.
    pub fn all(sites: u32) -> Part {
        Part::planes(sites, 1, 1)
    }

    /// A whole lattice of `planes` planes along its slowest axis, each of
    /// `rows` rows of `inner` sites.
    pub fn planes(inner: u32, rows: u32, planes: u32) -> Part {
        Part {
            inner,
            ey: rows,
            y0: 0,
            ny: rows,
            z0: 0,
            nz: planes,
            dz: 1,
            order: Order::STORAGE,
        }
    }

    /// The box run in blocks of `block` (inner rows of `row` sites, rows,
    /// planes) with `tile` planes' blocks together, each extent cut to a
    /// divisor of the box's (the largest not above it; a `row` that does not divide
    /// the inner sites becomes all of them).
    pub fn ordered(self, row: u32, block: [u32; 3], tile: u32) -> Part {
        let fit = |want: u32, extent: u32| fit(want.into(), extent.into());
        let row = if row > 0 && self.inner.is_multiple_of(row) {
            row
        } else {
            self.inner
        };
        let bt = fit(block[2], self.nz);
        let order = Order {
            row,
            block: [fit(block[0], self.inner / row), fit(block[1], self.ny), bt],
            group: fit(tile / bt, self.nz / bt),
        };
        Part { order, ..self }
    }

    /// The box's first `k` planes along the slowest axis and the rest, or
    /// `None` where that leaves either empty, the box is not in storage
    /// order (whose blocks span planes) or its planes are not adjacent.
    pub fn split_planes(self, k: u32) -> Option<(Part, Part)> {
        (k > 0 && k < self.nz && self.order.is_storage() && self.dz == 1).then(|| {
            let rest = Part {
                z0: self.z0 + k,
                nz: self.nz - k,
                ..self
            };
            (Part { nz: k, ..self }, rest)
        })
    }

    /// Sites in the box.
    pub fn count(self) -> u32 {
        self.inner * self.ny * self.nz
    }

    /// i's digits in a non-storage order, each a (stride, count): x in a
    /// row, the block's inner row, row and plane, the group's block, then
    /// the blocks along the inner rows and along the rows; and the stride
    /// of the plane groups, which take the rest of i.
    fn digits(self) -> ([(u32, u32); 7], u32) {
        let Order { row, block, group } = self.order;
        let counts = [
            row,
            block[0],
            block[1],
            block[2],
            group,
            self.inner / row / block[0],
            self.ny / block[1],
        ];
        let mut stride = 1;
        let digits = counts.map(|n| {
            let d = (stride, n);
            stride *= n;
            d
        });
        (digits, stride)
    }

    /// `spec` with the box's `PART_COUNT` and `part_site(i)`, the site of
    /// the box's `i`-th site. Written out per box: a box of whole planes
    /// in storage order (every single-device dispatch but an ordered one)
    /// maps by an addition alone.
    pub fn apply(self, spec: ShaderSpec) -> ShaderSpec {
        let Part {
            inner,
            ey,
            y0,
            ny,
            z0,
            dz,
            ..
        } = self;
        let body = match (y0, ny == ey && dz == 1) {
            _ if !self.order.is_storage() => {
                // The same digits as `sites`, written out.
                let (digits, groups) = self.digits();
                let d = digits.map(|(s, n)| format!("(i / {s}u) % {n}u"));
                let Order {
                    row,
                    block: [by, bz, bt],
                    group,
                } = self.order;
                let x = format!("{} + {row}u * ({} * {by}u + {})", d[0], d[5], d[1]);
                let y = format!("{} * {bz}u + {}", d[6], d[2]);
                let z = format!("((i / {groups}u) * {group}u + {}) * {bt}u + {}", d[4], d[3]);
                format!(
                    "{x} + {inner}u * ({y0}u + {y}) + {}u * ({z0}u + {dz}u * ({z}))",
                    inner * ey
                )
            }
            (0, true) if z0 == 0 => "i".to_string(),
            (0, true) => format!("{}u + i", inner * ey * z0),
            _ => format!(
                "i % {inner}u + {inner}u * ({y0}u + (i / {inner}u) % {ny}u) + {}u * ({z0}u + {dz}u * (i / {}u))",
                inner * ey,
                inner * ny
            ),
        };
        spec.with_u32("PART_COUNT", self.count()).with_include(format!(
            "// Site of the dispatch's i-th site (scale::Part).\nfn part_site(i: u32) -> u32 {{ return {body}; }}\n"
        ))
    }

    /// The sites in order (what `part_site` gives).
    pub fn sites(self) -> impl Iterator<Item = u32> {
        let storage = self.order.is_storage();
        let (digits, groups) = self.digits();
        let Order {
            row,
            block: [by, bz, bt],
            group,
        } = self.order;
        (0..self.count()).map(move |i| {
            let (x, y, z) = if storage {
                let rest = i / self.inner;
                (i % self.inner, rest % self.ny, rest / self.ny)
            } else {
                let d = digits.map(|(s, n)| (i / s) % n);
                (
                    d[0] + row * (d[5] * by + d[1]),
                    d[6] * bz + d[2],
                    ((i / groups) * group + d[4]) * bt + d[3],
                )
            };
            x + self.inner * (self.y0 + y + self.ey * (self.z0 + self.dz * z))
        })
    }
}

/// The largest divisor of `extent` that is at most `want` (1 at least).
fn fit(want: u64, extent: u64) -> u32 {
    (1..=want.clamp(1, extent.max(1)))
        .rev()
        .find(|d| extent.is_multiple_of(*d))
        .unwrap_or(1) as u32
}

impl Decomposition {
    /// A box of a rank's padded field: rows `y` along the second slowest
    /// axis, planes `z` along the slowest.
    fn part(&self, y: std::ops::Range<usize>, z: std::ops::Range<usize>) -> Part {
        let [inner, ey, _] = self.padded3();
        Part {
            inner: inner as u32,
            ey: ey as u32,
            y0: y.start as u32,
            ny: y.len() as u32,
            z0: z.start as u32,
            nz: z.len() as u32,
            dz: 1,
            order: Order::STORAGE,
        }
    }

    /// The owned rows along the second slowest axis (all of them on a slab
    /// split) and whether that axis is split.
    fn owned_rows(&self) -> (std::ops::Range<usize>, bool) {
        match &self.second {
            Some(s) => (self.halo..self.halo + s.local, true),
            None => (0..self.padded3()[1], false),
        }
    }

    /// A rank's whole padded field, halos included.
    pub fn padded_part(&self) -> Part {
        let [_, rows, planes] = self.padded3();
        self.part(0..rows, 0..planes)
    }

    /// A rank's owned sites, as a box of its padded field.
    pub fn owned_part(&self) -> Part {
        let (rows, _) = self.owned_rows();
        self.part(rows, self.halo..self.halo + self.local)
    }

    /// A rank's owned sites that read no halo (a kernel reaching `halo`
    /// sites along each split axis), as a box of its padded field; `None`
    /// when every owned site is within reach of a halo.
    pub fn interior(&self) -> Option<Part> {
        let h = self.halo;
        let (rows, split) = self.owned_rows();
        let rows = if split {
            rows.start + h..rows.end - h
        } else {
            rows
        };
        let planes = 2 * h..self.local;
        (!rows.is_empty() && !planes.is_empty()).then(|| self.part(rows, planes))
    }

    /// A rank's owned sites within reach of a halo, as boxes of its padded
    /// field: the lowest and highest `halo` planes along the slowest axis
    /// (one box where `halo` is 1), and on a grid the lowest and highest
    /// `halo` rows along the second between them (the whole owned box when
    /// it has no interior).
    pub fn boundary(&self) -> Vec<Part> {
        let h = self.halo;
        let (rows, split) = self.owned_rows();
        if self.interior().is_none() {
            return vec![self.owned_part()];
        }
        let mut parts = match h {
            // Both planes in one box: one dispatch, where two in turn each
            // ramp up and drain a GPU for a plane's work.
            1 => vec![Part {
                nz: 2,
                dz: self.local as u32 - 1,
                ..self.part(rows.clone(), 1..2)
            }],
            _ => vec![
                self.part(rows.clone(), h..2 * h),
                self.part(rows.clone(), self.local..self.local + h),
            ],
        };
        if split {
            let planes = 2 * h..self.local;
            parts.push(self.part(rows.start..rows.start + h, planes.clone()));
            parts.push(self.part(rows.end - h..rows.end, planes));
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_splits_into_its_first_planes_and_the_rest() {
        let b = Part {
            z0: 2,
            nz: 6,
            ..Part::planes(4, 3, 10)
        };
        let (lead, rest) = b.split_planes(2).expect("split");
        let sites: Vec<u32> = lead.sites().chain(rest.sites()).collect();
        assert_eq!(sites, b.sites().collect::<Vec<_>>());
        assert_eq!((lead.count(), rest.count()), (24, 48));
        assert!(b.split_planes(0).is_none() && b.split_planes(6).is_none());
        assert!(b.ordered(4, [1, 1, 2], 2).split_planes(2).is_none());
    }

    /// Every owned site of a rank's padded field, in order.
    fn owned(d: &Decomposition) -> Vec<u32> {
        let field: Vec<f64> = (0..d.padded_sites()).map(|s| s as f64).collect();
        d.owned(&field, 1).iter().map(|&s| s as u32).collect()
    }

    #[test]
    fn interior_and_boundary_cover_the_owned_sites_once() {
        let slabs = [(1, 1), (2, 1), (4, 1), (8, 1), (2, 2), (4, 2)]
            .map(|(r, h)| Decomposition::plan("z", &[3, 2, 8], r, h).expect("slabs"));
        let grids = [(4, 1), (6, 1), (9, 1), (4, 2), (16, 1)]
            .map(|(r, h)| Decomposition::plan_grid(["y", "z"], &[2, 12, 12], r, h).expect("grid"));
        for d in slabs.iter().chain(&grids) {
            let mut sites: Vec<u32> = d.boundary().into_iter().flat_map(Part::sites).collect();
            sites.extend(d.interior().into_iter().flat_map(Part::sites));
            sites.sort_unstable();
            assert_eq!(sites, owned(d), "{}", d.label());
        }
    }

    #[test]
    fn the_boundary_is_the_sites_next_to_the_halos() {
        let d = Decomposition::plan("z", &[2, 2, 8], 2, 1).expect("plan");
        // Padded planes 0 and 5 are halos; 1 and 4 read them.
        let b: Vec<u32> = d.boundary().into_iter().flat_map(Part::sites).collect();
        assert_eq!(b, [4, 5, 6, 7, 16, 17, 18, 19]);
        let i: Vec<u32> = d.interior().expect("interior").sites().collect();
        assert_eq!(i, (8..16).collect::<Vec<_>>());
        // One plane per rank: all boundary, no interior.
        let thin = Decomposition::plan("z", &[2, 2, 8], 8, 1).expect("plan");
        assert_eq!(thin.interior(), None);
        let b: Vec<u32> = thin.boundary().into_iter().flat_map(Part::sites).collect();
        assert_eq!(b, [4, 5, 6, 7]);
        assert_eq!(Part::all(5).sites().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        // One box of both planes, a halo of one plane deep; two of two.
        assert_eq!(d.boundary().len(), 1);
        let deep = Decomposition::plan("z", &[2, 2, 16], 2, 2).expect("plan");
        assert_eq!(deep.boundary().len(), 2);
        // A grid: 3 boxes around an interior of 2 x 2 rows and planes (the
        // planes, then the rows between them at each side).
        let g = Decomposition::plan_grid(["y", "z"], &[1, 8, 8], 4, 1).expect("grid");
        assert_eq!(g.boundary().len(), 3);
        // Padded 6 x 6: the interior is rows 2..4 of planes 2..4.
        let i: Vec<u32> = g.interior().expect("interior").sites().collect();
        assert_eq!(i, [14, 15, 20, 21]);
    }

    #[test]
    fn whole_planes_map_by_an_addition() {
        let d = Decomposition::plan("z", &[2, 2, 8], 2, 1).expect("plan");
        let body = |p: Part| {
            p.apply(ShaderSpec::new("t", "", crate::Precision::F32))
                .includes
        };
        assert!(body(Part::all(9)).concat().contains("return i;"));
        assert!(
            body(d.interior().expect("interior"))
                .concat()
                .contains("return 8u + i;")
        );
        let g = Decomposition::plan_grid(["y", "z"], &[1, 8, 8], 4, 1).expect("grid");
        assert!(
            body(g.interior().expect("interior"))
                .concat()
                .contains("% 2u")
        );
    }

    /// Evaluates `part_site`'s WGSL body (unsigned integers, `i`, + * / %
    /// and parentheses) at `i`.
    fn eval(expr: &str, i: u32) -> u32 {
        fn atom(t: &[u8], at: &mut usize, i: u32) -> u32 {
            if t[*at] == b'(' {
                *at += 1;
                let v = sum(t, at, i);
                *at += 1; // ')'
                return v;
            }
            if t[*at] == b'i' {
                *at += 1;
                return i;
            }
            let start = *at;
            while t[*at].is_ascii_digit() {
                *at += 1;
            }
            let v = std::str::from_utf8(&t[start..*at])
                .expect("ascii")
                .parse()
                .expect("a number");
            *at += 1; // 'u'
            v
        }
        fn product(t: &[u8], at: &mut usize, i: u32) -> u32 {
            let mut v = atom(t, at, i);
            while *at < t.len() && matches!(t[*at], b'*' | b'/' | b'%') {
                let op = t[*at];
                *at += 1;
                let r = atom(t, at, i);
                v = match op {
                    b'*' => v * r,
                    b'/' => v / r,
                    _ => v % r,
                };
            }
            v
        }
        fn sum(t: &[u8], at: &mut usize, i: u32) -> u32 {
            let mut v = product(t, at, i);
            while *at < t.len() && t[*at] == b'+' {
                *at += 1;
                v += product(t, at, i);
            }
            v
        }
        let t: Vec<u8> = expr.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        sum(&t, &mut 0, i)
    }

    /// The WGSL `part_site` of `p`, evaluated at every index.
    fn wgsl_sites(p: Part) -> Vec<u32> {
        let spec = p.apply(ShaderSpec::new("t", "", crate::Precision::F32));
        let inc = spec.includes.concat();
        let body = inc
            .split("return ")
            .nth(1)
            .and_then(|b| b.split(';').next())
            .expect("part_site's body")
            .to_string();
        (0..p.count()).map(|i| eval(&body, i)).collect()
    }

    #[test]
    fn the_shader_visits_the_sites_the_host_expects() {
        let g = Decomposition::plan_grid(["y", "z"], &[2, 12, 12], 4, 1).expect("grid");
        let d = Decomposition::plan("z", &[4, 4, 12], 2, 1).expect("slabs");
        let mut boxes = vec![Part::all(7), Part::planes(4, 4, 6), d.padded_part()];
        boxes.extend(g.boundary());
        boxes.extend(g.interior());
        boxes.extend(d.boundary());
        boxes.extend(d.interior());
        let orders = [
            (1, [1, 1, 1], 1),
            (0, [1, 2, 1], 1),
            (0, [1, 1, 2], 4),
            (2, [2, 2, 2], 4),
            (4, [1, 3, 2], 2),
            (2, [2, 4, 4], 8),
        ];
        for b in boxes {
            for (row, block, tile) in orders {
                let o = b.ordered(row, block, tile);
                let sites: Vec<u32> = o.sites().collect();
                assert_eq!(wgsl_sites(o), sites, "{o:?}");
                let mut sorted = sites.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, b.sites().collect::<Vec<_>>(), "{o:?}");
            }
        }
    }

    #[test]
    fn an_ordered_box_runs_block_by_block() {
        // 2 x 2 inner sites (rows of 2), 4 rows, 6 planes.
        let whole = Part::planes(4, 4, 6);
        let o = whole.ordered(2, [2, 2, 3], 6);
        assert_eq!(o.order.block, [2, 2, 3]);
        assert_eq!(o.order.group, 2);
        let sites: Vec<u32> = o.sites().collect();
        // The first block: the 4 inner sites of rows 0-1 of planes 0-2 (16 sites a plane).
        assert_eq!(sites[..12], [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19]);
        // Then the second block along the planes (planes 3-5), before rows 2-3.
        assert_eq!(sites[24], 48);
        // Extents no divisor fits are cut: 3 rows of 4 run as 2, 4 planes of 6 as 3.
        assert_eq!(whole.ordered(2, [1, 3, 4], 1).order.block, [1, 2, 3]);
        // A row that does not divide the inner sites becomes all of them.
        assert_eq!(whole.ordered(3, [2, 1, 1], 1).order.row, 4);
    }
}
