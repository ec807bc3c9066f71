//! The one-screen summaries `rivet generate` and `rivet report merge` print from the engine's
//! reports, and the HTML report they write.

use std::fmt::Write as _;
use std::path::Path;

use rivet_report::{BranchRow, Report};

/// The summary printed on stdout.
pub fn summary(r: &Report, report_path: &Path) -> String {
    let mut s = String::new();
    let total = r.branches_total;
    let covered = r.branches_covered;
    let pct = if total == 0 {
        100.0
    } else {
        100.0 * covered as f64 / total as f64
    };
    let _ = writeln!(
        s,
        "rivet generate {} (seed {}, budget {} s)",
        r.class, r.seed, r.budget_s
    );
    match &r.test_file {
        Some(f) => {
            let _ = writeln!(s, "  tests       {} written to {f}", r.tests);
        }
        None => {
            let _ = writeln!(s, "  tests       none: no test file written");
        }
    }
    let verified = if r.verified {
        r.verification.as_str()
    } else {
        "no (no JUnit jars found)"
    };
    let _ = writeln!(s, "  verified    {verified}");
    for d in r.dropped.iter().take(5) {
        let reason: String = d.reason.chars().take(100).collect();
        let _ = writeln!(s, "    dropped {}: {reason}", d.test);
    }
    if r.dropped.len() > 5 {
        let _ = writeln!(
            s,
            "    … and {} more (rivet-report.json)",
            r.dropped.len() - 5
        );
    }
    let _ = writeln!(s, "  branches    {covered}/{total} covered ({pct:.1} %)");
    if let Some(m) = &r.mutation {
        let _ = writeln!(s, "  mutation    {}", m.summary());
    }
    if let Some(o) = &r.oracle {
        let _ = writeln!(
            s,
            "  assertions  {} kept of {} (median per test {} before, {} after){}",
            o.assertions_after,
            o.assertions_before,
            o.median_before,
            o.median_after,
            if o.tests_dropped > 0 {
                format!("; {} tests that killed nothing dropped", o.tests_dropped)
            } else {
                String::new()
            }
        );
    }
    // Class by class, as JaCoCo counts them, when there are nested or covered classes.
    if r.classes.len() > 1 {
        for c in &r.classes {
            let role = match c.reachable {
                None => "",
                Some(true) => " (--cover)",
                Some(false) => {
                    " (--cover; the class under test never refers to it: 0 reachable branches)"
                }
            };
            let _ = writeln!(s, "    {} {}/{}{role}", c.class, c.covered, c.branches);
        }
    }
    let _ = writeln!(
        s,
        "  executions  {} in {:.1} s (search {:.1} s)",
        r.executions, r.elapsed_s, r.search_s
    );
    techniques(&mut s, r);
    if let Some(p) = r.pc_selection().filter(|p| p.tried > 0) {
        let c = &p.classifier;
        let _ = writeln!(
            s,
            "  pc policy   {}: {} path conditions tried, {} satisfied, {} given up; classifier: {} examples ({} feasible)",
            p.policy, p.tried, p.satisfied, p.failed, c.training, c.feasible
        );
        if let Some(a) = p.alternatives.as_ref().filter(|a| a.tests > 0) {
            let tried = p.attempts.iter().filter(|t| t.alternative).count();
            let _ = writeln!(
                s,
                "    alternatives: {} tests traced, {} paths of theirs confirmed, {} alternatives kept ({} refuted by the solver, {} contradicting learned invariants), {} tried ({:.1} s)",
                a.tests, a.sources, a.alternatives, a.refuted, a.contradicted, tried, a.seconds
            );
        }
    }
    if let Some(c) = r.concolic().filter(|c| c.traced_runs > 0) {
        let _ = writeln!(
            s,
            "  concolic    {} traced runs; {} of {} unvisited outcomes solved in {:.1} s ({} by whole-test replay); {} new tests, {} heap goals ({} reached); {} runs diverged",
            c.traced_runs, c.solved, c.nodes, c.explore_s, c.whole_tests, c.tests, c.goals, c.goals_reached, c.divergences
        );
        if c.pauses > 0 {
            let _ = writeln!(
                s,
                "    paused {} times beside the other strategies after solving that gave nothing",
                c.pauses
            );
        }
        for (at, n) in &c.diverged_at {
            let _ = writeln!(s, "    diverged at {at}: {n}");
        }
        if c.dse_requests > 0 {
            let _ = writeln!(
                s,
                "    adaptive DSE: {} requests from the search, {} steps taken, {} covered more; {} \
                 requests with no uncovered outcome beside their paths",
                c.dse_requests, c.dse_steps, c.dse_improved, c.dse_no_open
            );
        }
    }
    let events = r.events.phrases();
    if !events.is_empty() {
        let _ = writeln!(s, "  events      {}", events.join("; "));
    }
    let missed: Vec<&BranchRow> = r.branches.iter().filter(|b| !b.covered).collect();
    if !missed.is_empty() {
        let _ = writeln!(s, "  not covered:");
        for b in missed.iter().take(10) {
            let line = b.line.map_or_else(|| "-".into(), |l| l.to_string());
            let simple = b.class.simple();
            let _ = writeln!(
                s,
                "    {simple}.{} line {line} ({}), branch {}",
                b.method, b.kind, b.id
            );
        }
        if missed.len() > 10 {
            let _ = writeln!(s, "    … and {} more", missed.len() - 10);
        }
    }
    for u in &r.untestable {
        let _ = writeln!(s, "  untestable: {u}");
    }
    let _ = writeln!(s, "  report      {}", report_path.display());
    s
}

/// The summary of a run over many classes: totals, then one line per class.
pub fn project_summary(r: &rivet_report::ProjectReport, report_path: &Path) -> String {
    let mut s = String::new();
    let pct = |c: usize, t: usize| {
        if t == 0 {
            100.0
        } else {
            100.0 * c as f64 / t as f64
        }
    };
    let budgets: u64 = r.classes.iter().map(|c| c.budget_s).sum();
    let _ = writeln!(
        s,
        "rivet generate: {} classes{} (seed {}, budget {} s per class{})",
        r.classes.len(),
        r.shard
            .as_ref()
            .map(|x| format!(", shard {x}"))
            .unwrap_or_default(),
        r.seed,
        r.budget_s,
        r.total_budget_s
            .map(|t| format!(", {t} s in total"))
            .unwrap_or_default(),
    );
    let _ = writeln!(
        s,
        "  classes     {} generated, {} skipped, {} failed",
        r.generated, r.skipped, r.failed
    );
    let _ = writeln!(
        s,
        "  branches    {}/{} covered ({:.1} %), {} tests",
        r.branches_covered,
        r.branches_total,
        pct(r.branches_covered, r.branches_total),
        r.tests
    );
    let _ = writeln!(
        s,
        "  time        {:.1} s (sum of the class budgets {budgets} s)",
        r.elapsed_s
    );
    let nested = r
        .classes
        .iter()
        .filter(|c| {
            c.reason
                .as_deref()
                .is_some_and(|x| x.starts_with("nested in"))
        })
        .count();
    for c in &r.classes {
        if c.reason
            .as_deref()
            .is_some_and(|x| x.starts_with("nested in"))
        {
            continue;
        }
        match c.status {
            rivet_report::ClassStatus::Generated => {
                let _ = writeln!(
                    s,
                    "    {:<70} {:>5}/{:<5} {:>5.1} % {:>4} tests {:>6.1} s{}",
                    c.class,
                    c.branches_covered,
                    c.branches_total,
                    pct(c.branches_covered, c.branches_total),
                    c.tests,
                    c.elapsed_s,
                    if c.verified { "" } else { " (not verified)" }
                );
                if let Some(reason) = &c.reason {
                    let _ = writeln!(s, "      {reason}");
                }
            }
            rivet_report::ClassStatus::Skipped | rivet_report::ClassStatus::Failed => {
                let reason: String = c
                    .reason
                    .as_deref()
                    .unwrap_or("")
                    .chars()
                    .take(120)
                    .collect();
                let what = if c.status == rivet_report::ClassStatus::Failed {
                    "failed"
                } else {
                    "skipped"
                };
                let _ = writeln!(s, "    {:<70} {what}: {reason}", c.class);
            }
        }
    }
    if nested > 0 {
        let _ = writeln!(
            s,
            "    ({nested} nested classes: their branches are goals of their outer classes' runs)"
        );
    }
    let _ = writeln!(s, "  report      {}", report_path.display());
    s
}

/// Writes the HTML report of `index` under `out`.
pub fn html(
    out: &std::path::Path,
    index: &rivet_report::ProjectReport,
    sourcepath: Option<&str>,
) -> anyhow::Result<std::path::PathBuf> {
    let dirs: Vec<std::path::PathBuf> = sourcepath
        .map(|s| {
            s.split(':')
                .filter(|d| !d.is_empty())
                .map(std::path::PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(rivet_html::write_site(out, index, &dirs)?)
}

/// The techniques' line and the symbolic strategy's.
fn techniques(s: &mut String, r: &Report) {
    if r.techniques.len() > 1 {
        let parts: Vec<String> = r
            .techniques
            .iter()
            .map(|t| {
                let timed_out = match t.timed_out {
                    0 => String::new(),
                    n => format!(" ({n} timed out)"),
                };
                format!(
                    "{} {} turns {:.1} s {} runs{timed_out}, {} goals first ({} branches), {} tests",
                    t.strategy,
                    t.turns,
                    t.seconds,
                    t.executions,
                    t.first_covered,
                    t.first_covered_branches,
                    t.final_tests
                )
            })
            .collect();
        let _ = writeln!(s, "  techniques  {}", parts.join("; "));
    }
    // Left out when the search covered everything before anything was explored.
    if let Some(y) = r.symbolic().filter(|y| y.methods_explored > 0) {
        let _ = writeln!(
            s,
            "  symbolic    {} paths of {} methods explored in {:.1} s{}, selection {:.1} s; {} of {} path-condition goals reached",
            y.paths,
            y.methods_explored,
            y.explore_s,
            if y.explore_stale {
                " (stopped: no new path to an uncovered branch)"
            } else {
                ""
            },
            y.select_s,
            y.goals_reached,
            y.goals
        );
    }
}
