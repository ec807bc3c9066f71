//! Global probe ids. Every instrumented class owns the contiguous range
//! `[base, base + branch_count + point_count)`: the probe of branch `b` of the class is
//! `base + b` (the ids `rivet branches` prints), and its JaCoCo points follow (see
//! [`rivet_analysis::MethodProbes`]); each branch lists the points that confirm it. Classes are numbered in order of internal name, so the ids are
//! the same for the same classes. The map translates probe ids reported by a worker back to
//! (class, branch) and is written as `rivet-probes.tsv`.

use rivet_classfile::ClassName;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use rivet_analysis::{BranchId, BranchKind, BranchPlace};
use rivet_testcase::ProbeId;

use crate::error::InstrumentError;
use crate::plan::ClassPlan;

/// Header of `rivet-probes.tsv`.
pub const PROBES_TSV_HEADER: &str =
    "class\tbranch\tprobe\tmethod\tdescriptor\toffset\tline\tkind\tconfirmed_by\tpoints";

/// Probe ids of all instrumented classes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeMap {
    /// Ordered by `base`.
    classes: Vec<ClassProbes>,
    by_name: HashMap<ClassName, usize>,
    probe_count: u32,
}

/// The probes of one class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassProbes {
    pub class: ClassName,
    /// Probe id of branch 0.
    pub base: u32,
    /// Methods with branches: (name, descriptor).
    pub methods: Vec<(String, String)>,
    /// Branch `b` of the class is `branches[b]`.
    pub branches: Vec<BranchInfo>,
    /// Number of JaCoCo points; their ids follow the branch probes.
    pub points: u32,
}

/// What a probe stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchInfo {
    /// Index into `ClassProbes::methods`.
    pub method: usize,
    /// Offset of the branching instruction.
    pub offset: u32,
    pub line: Option<u16>,
    pub kind: BranchKind,
    /// Global ids of the points whose hit makes JaCoCo count the branch covered (None: not
    /// emulated, the branch's own probe decides).
    pub confirmed_by: Option<Vec<u32>>,
}

/// Where a class's probe ids and switch ids start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeRange {
    /// Probe id of branch 0.
    pub base: u32,
    /// Global id of switch site 0 (the id written to `switches.bin`).
    pub switch_base: u32,
}

impl ClassProbes {
    /// The global probe id of a branch of this class.
    pub fn probe(&self, branch: BranchId) -> Option<ProbeId> {
        ((branch.0 as usize) < self.branches.len()).then(|| ProbeId(self.base + branch.0))
    }

    /// Name and descriptor of the method a branch belongs to.
    pub fn method_of(&self, branch: BranchId) -> Option<(&str, &str)> {
        let b = self.branches.get(branch.0 as usize)?;
        self.methods
            .get(b.method)
            .map(|(n, d)| (n.as_str(), d.as_str()))
    }

    /// The probes whose hit makes JaCoCo count `branch` covered: its points, or the branch's
    /// own probe when its method's points are not emulated.
    pub fn confirmers(&self, branch: BranchId) -> Option<Vec<ProbeId>> {
        let info = self.branches.get(branch.0 as usize)?;
        Some(match &info.confirmed_by {
            Some(points) => points.iter().map(|&p| ProbeId(p)).collect(),
            None => vec![ProbeId(self.base + branch.0)],
        })
    }

    fn branch_end(&self) -> u32 {
        self.base + self.branches.len() as u32
    }

    fn end(&self) -> u32 {
        self.branch_end() + self.points
    }
}

impl ProbeMap {
    /// Numbers the given plans: classes in order of internal name, each with the next free
    /// probe ids and switch ids. Returns the map and each plan's range (in the plans' order).
    /// Plans without branches get an empty range and are left out of the map.
    pub fn assign(plans: &[ClassPlan]) -> Result<(ProbeMap, Vec<ProbeRange>), InstrumentError> {
        let mut order: Vec<usize> = (0..plans.len()).collect();
        order.sort_by(|&a, &b| plans[a].class.cmp(&plans[b].class));
        let mut ranges = vec![
            ProbeRange {
                base: 0,
                switch_base: 0
            };
            plans.len()
        ];
        let (mut probe, mut switch) = (0u64, 0u64);
        let mut map = ProbeMap::default();
        for i in order {
            let plan = &plans[i];
            ranges[i] = ProbeRange {
                base: probe as u32,
                switch_base: switch as u32,
            };
            probe += plan.branch_count as u64 + plan.point_count as u64;
            switch += plan.switch_count as u64;
            for (what, count) in [("probes", probe), ("switches", switch)] {
                if count > i32::MAX as u64 {
                    return Err(InstrumentError::TooManyProbes { what, count });
                }
            }
            if !plan.is_empty() {
                map.push(class_probes(plan, ranges[i].base));
            }
        }
        Ok((map, ranges))
    }

    fn push(&mut self, c: ClassProbes) {
        self.probe_count = self.probe_count.max(c.end());
        self.by_name.insert(c.class.clone(), self.classes.len());
        self.classes.push(c);
    }

    /// The classes with probes, by increasing base.
    pub fn classes(&self) -> &[ClassProbes] {
        &self.classes
    }

    /// One past the highest probe id.
    pub fn probe_count(&self) -> u32 {
        self.probe_count
    }

    /// The probes of a class, by binary (`a.b.C`) or internal (`a/b/C`) name.
    pub fn class(&self, name: &str) -> Option<&ClassProbes> {
        let i = *self.by_name.get(&ClassName::from_internal(name))?;
        self.classes.get(i)
    }

    /// The global probe id of a class's branch.
    pub fn probe(&self, class: &str, branch: BranchId) -> Option<ProbeId> {
        self.class(class)?.probe(branch)
    }

    /// The probe of a branch, by its place.
    pub fn probe_of(&self, place: &BranchPlace) -> Option<ProbeId> {
        self.class(place.class.internal())?.probe(place.branch)
    }

    /// The probes that make JaCoCo count a branch covered (see [`ClassProbes::confirmers`]).
    pub fn confirmers_of(&self, place: &BranchPlace) -> Option<Vec<ProbeId>> {
        self.class(place.class.internal())?.confirmers(place.branch)
    }

    /// The class and branch a probe id stands for.
    pub fn resolve(&self, probe: ProbeId) -> Option<(&ClassProbes, BranchId)> {
        let probe = probe.0;
        let i = self.classes.partition_point(|c| c.base <= probe);
        let c = self.classes.get(i.checked_sub(1)?)?;
        (probe < c.branch_end()).then(|| (c, BranchId(probe - c.base)))
    }

    /// Drops a class (whose probes could not be inserted); other ids do not change.
    pub fn remove_class(&mut self, name: &str) {
        let Some(c) = self.class(name) else {
            return;
        };
        let class = c.class.clone();
        self.classes.retain(|c| c.class != class);
        self.by_name = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.class.clone(), i))
            .collect();
    }

    /// The map as TSV (header [`PROBES_TSV_HEADER`]), one row per probe, by probe id.
    pub fn to_tsv(&self) -> String {
        let mut out = String::with_capacity(64 * self.probe_count as usize + 64);
        out.push_str(PROBES_TSV_HEADER);
        out.push('\n');
        for c in &self.classes {
            for (b, info) in c.branches.iter().enumerate() {
                let (m, d) = c
                    .methods
                    .get(info.method)
                    .map_or(("?", "?"), |(m, d)| (m.as_str(), d.as_str()));
                let line = info.line.map_or_else(|| "-".to_string(), |l| l.to_string());
                let confirmed = info.confirmed_by.as_ref().map_or_else(
                    || "-".to_string(),
                    |v| {
                        v.iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    },
                );
                let _ = writeln!(
                    out,
                    "{}\t{b}\t{}\t{m}\t{d}\t{}\t{line}\t{}\t{confirmed}\t{}",
                    c.class,
                    c.base as usize + b,
                    info.offset,
                    info.kind,
                    c.points
                );
            }
        }
        out
    }

    /// Reads a map written by [`ProbeMap::to_tsv`]; `path` names the file in errors.
    pub fn from_tsv(text: &str, path: &Path) -> Result<ProbeMap, InstrumentError> {
        let bad = |line: usize, reason: String| InstrumentError::ProbeMap {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, h)) if h == PROBES_TSV_HEADER => {}
            _ => return Err(bad(1, format!("expected the header {PROBES_TSV_HEADER:?}"))),
        }
        let mut map = ProbeMap::default();
        let mut cur: Option<ClassProbes> = None;
        for (n, line) in lines {
            let n = n + 1;
            let cols: Vec<&str> = line.split('\t').collect();
            let [class, branch, probe, method, descriptor, offset, line_no, kind, confirmed, points] =
                cols[..]
            else {
                return Err(bad(n, format!("expected 10 columns, found {}", cols.len())));
            };
            let num = |s: &str, what: &str| {
                s.parse::<u32>()
                    .map_err(|_| bad(n, format!("{what} {s:?} is not a number")))
            };
            let points = num(points, "points")?;
            let (branch, probe, offset) = (
                num(branch, "branch")?,
                num(probe, "probe")?,
                num(offset, "offset")?,
            );
            let line_no = match line_no {
                "-" => None,
                l => Some(
                    l.parse::<u16>()
                        .map_err(|_| bad(n, format!("line {l:?} is not a number")))?,
                ),
            };
            let kind = parse_kind(kind).ok_or_else(|| bad(n, format!("unknown kind {kind:?}")))?;
            let confirmed_by = match confirmed {
                "-" => None,
                "" => Some(Vec::new()),
                list => Some(
                    list.split(',')
                        .map(|p| num(p, "point"))
                        .collect::<Result<Vec<u32>, _>>()?,
                ),
            };
            if cur
                .as_ref()
                .is_some_and(|c| c.class != ClassName::from_binary(class))
            {
                if let Some(done) = cur.take() {
                    map.push(done);
                }
            }
            let c = cur.get_or_insert_with(|| ClassProbes {
                class: ClassName::from_binary(class),
                base: probe.wrapping_sub(branch),
                methods: Vec::new(),
                branches: Vec::new(),
                points: 0,
            });
            if branch as usize != c.branches.len() || probe != c.base.wrapping_add(branch) {
                return Err(bad(
                    n,
                    format!("branch {branch} / probe {probe} out of sequence for {class}"),
                ));
            }
            let method = match c
                .methods
                .iter()
                .rposition(|(m, d)| m == method && d == descriptor)
            {
                Some(i) => i,
                None => {
                    c.methods.push((method.to_string(), descriptor.to_string()));
                    c.methods.len() - 1
                }
            };
            c.points = points;
            c.branches.push(BranchInfo {
                method,
                offset,
                line: line_no,
                kind,
                confirmed_by,
            });
        }
        if let Some(done) = cur {
            map.push(done);
        }
        if map.classes.windows(2).any(|w| w[0].end() > w[1].base) {
            return Err(bad(0, "probe ranges overlap or are out of order".into()));
        }
        Ok(map)
    }
}

fn class_probes(plan: &ClassPlan, base: u32) -> ClassProbes {
    let mut methods = Vec::with_capacity(plan.methods.len());
    let mut branches = Vec::with_capacity(plan.branch_count as usize);
    let first_point = base + plan.branch_count;
    for (mi, m) in plan.methods.iter().enumerate() {
        methods.push((m.name.clone(), m.descriptor.clone()));
        for b in &m.branches {
            branches.push(BranchInfo {
                method: mi,
                offset: b.offset,
                line: b.line,
                kind: b.kind.clone(),
                confirmed_by: b
                    .confirmed_by
                    .as_ref()
                    .map(|v| v.iter().map(|p| first_point + m.point_base + p).collect()),
            });
        }
    }
    ClassProbes {
        class: plan.class.clone(),
        base,
        methods,
        branches,
        points: plan.point_count,
    }
}

/// Parses a branch kind as `BranchKind`'s `Display` writes it.
fn parse_kind(s: &str) -> Option<BranchKind> {
    Some(match s {
        "true" => BranchKind::True,
        "false" => BranchKind::False,
        "default" => BranchKind::Default,
        _ => BranchKind::Case(
            s.strip_prefix("case ")?
                .split(',')
                .map(|k| k.parse::<i32>().ok())
                .collect::<Option<Vec<_>>>()?,
        ),
    })
}
