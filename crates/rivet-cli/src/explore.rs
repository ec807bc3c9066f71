//! `rivet explore`: symbolic exploration of one method; writes `paths.jsonl` (one path per
//! line: id, path condition, branches, end) and `summary.json`.

use rivet_classfile::ClassName;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use rivet_classpath::{Classpath, JdkImage};
use rivet_symbolic::{
    Confirmation, ExploreConfig, ExploreSummary, Explorer, Invariants, MethodSpec, PathLine,
    Replay, SearcherKind, SummaryFile, SymbolicError,
};

use crate::bad_input;
use crate::cli::ExploreArgs;

/// The configuration the flags describe.
fn config(args: &ExploreArgs) -> Result<ExploreConfig> {
    let mut config = ExploreConfig::default();
    if let Some(d) = args.depth {
        config.depth = d;
    }
    if let Some(n) = args.max_paths {
        config.max_paths = n;
    }
    for scope in &args.heap_scope {
        let (class, n) = scope
            .rsplit_once('=')
            .ok_or_else(|| bad_input(format!("--heap-scope {scope:?}: expected CLASS=N")))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad_input(format!("--heap-scope {scope:?}: N must be a number")))?;
        config.heap_scope.insert(
            ClassName::from_binary(class.trim()).internal().to_string(),
            n,
        );
    }
    if let Some(s) = &args.searcher {
        config.searcher = SearcherKind::parse(s).ok_or_else(|| {
            bad_input(format!(
                "--searcher {s:?}: expected dfs, bfs, random or new-coverage"
            ))
        })?;
    }
    config.seed = args.seed;
    config.symbolic_strings = args.symbolic_strings;
    if let Some(path) = &args.invariants {
        let text = std::fs::read_to_string(path)
            .map_err(|e| bad_input(format!("--invariants {}: {e}", path.display())))?;
        config.invariants = Invariants::parse(&text)
            .map_err(|e| bad_input(format!("--invariants {}: {e}", path.display())))?;
    }
    config.time_budget = args.budget.map(Duration::from_secs);
    if let Some(ms) = args.fp_timeout_ms {
        config.fp_timeout = Duration::from_millis(ms);
    }
    config.avm.enabled = !args.no_avm;
    config.avm.seed = args.seed;
    if let Some(trace) = &args.trace {
        let ids = trace
            .split(',')
            .filter(|t| !t.trim().is_empty())
            .map(|t| t.trim().parse::<u32>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| bad_input(format!("--trace {trace:?}: expected branch ids like 1,3,4")))?;
        config.guidance = rivet_symbolic::Guidance::Trace(rivet_symbolic::Trace::whole(ids));
    }
    Ok(config)
}

fn is_bad_input(e: &SymbolicError) -> bool {
    matches!(
        e,
        SymbolicError::ClassNotFound { .. }
            | SymbolicError::MethodNotFound { .. }
            | SymbolicError::DescriptorMismatch { .. }
            | SymbolicError::NoCode { .. }
            | SymbolicError::BadMethodName { .. }
            | SymbolicError::Invariants { .. }
            | SymbolicError::BadClass { .. }
            | SymbolicError::Classpath {
                source: rivet_classpath::ClasspathError::BadClass { .. }
                    | rivet_classpath::ClasspathError::WrongName { .. },
                ..
            }
    )
}

pub fn run(args: &ExploreArgs) -> Result<ExitCode> {
    let spec = MethodSpec::parse(&args.method).map_err(|e| bad_input(e.to_string()))?;
    let config = config(args)?;
    let jdk_home = match &args.jdk {
        Some(home) => home.clone(),
        None => rivet_classpath::find_home().map_err(|e| bad_input(e.to_string()))?,
    };
    let jdk = Arc::new(JdkImage::open(&jdk_home).map_err(|e| bad_input(e.to_string()))?);
    let classpath = Arc::new(
        Classpath::parse(&args.classpath, Some(jdk)).map_err(|e| bad_input(e.to_string()))?,
    );
    // The classes `--cover` names: their branches are recorded too.
    let cover: Vec<Arc<str>> = rivet_engine::match_cover(&classpath, &spec.class, &args.cover)
        .map_err(|e| bad_input(e.to_string()))?
        .iter()
        .map(|c| Arc::from(c.internal()))
        .collect();
    let config = rivet_symbolic::ExploreConfig {
        cover: cover.clone(),
        ..config
    };
    let explorer = Explorer::new(classpath.clone(), config);
    let mut reached = std::collections::BTreeSet::new();
    let mut out: Box<dyn Write> = match &args.out {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                return Err(bad_input(format!(
                    "--out {} exists and is not a directory",
                    dir.display()
                )));
            }
            std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
            let file = dir.join("paths.jsonl");
            Box::new(BufWriter::new(
                File::create(&file).with_context(|| format!("create {}", file.display()))?,
            ))
        }
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let mut write_error: Option<std::io::Error> = None;
    // Each path's PC solved whole and replayed concretely, with a solver of its own.
    let mut confirm_solver = explorer.config().solver();
    let mut counts = ReplayCounts::default();
    let result = explorer.explore(&spec, &mut |path, symbols| {
        let mut line = PathLine::new(path, symbols).covering(path, &cover);
        reached.extend(path.branches.iter().copied());
        if !args.no_replay {
            let c = explorer.confirm(&spec, path, symbols, &mut confirm_solver);
            counts.add(&c);
            line = line.with_confirmation(&c);
        }
        if write_error.is_none() {
            let line = serde_json::to_string(&line)
                .map_err(std::io::Error::from)
                .and_then(|text| writeln!(out, "{text}"));
            if let Err(e) = line {
                write_error = Some(e);
            }
        }
    });
    let summary = match result {
        Ok(s) => s,
        Err(e) if is_bad_input(&e) => return Err(bad_input(e.to_string())),
        Err(e) => return Err(anyhow::Error::new(e)),
    };
    if let Some(e) = write_error {
        return Err(e.into());
    }
    out.flush()?;
    let mut summary = summary;
    counts.fill(&mut summary);
    let mut summary = SummaryFile::new(&spec.display(), &summary);
    summary.covered_classes = rivet_symbolic::covered_classes(&classpath, &cover, &reached);
    for c in &summary.covered_classes {
        eprintln!(
            "rivet: {} (--cover): {} of {} branches covered by some path",
            c.class, c.reached, c.branches
        );
    }
    match &args.out {
        Some(dir) => {
            let file: PathBuf = dir.join("summary.json");
            let text = serde_json::to_string_pretty(&summary)?;
            std::fs::write(&file, format!("{text}\n"))
                .with_context(|| format!("write {}", file.display()))?;
            eprintln!(
                "rivet: explored {} paths of {} in {:.2} s ({} precise, {} unsupported; \
                 {} floating-point paths, {} solved, {} confirmed by replay; \
                 AVM solved {} of {} unknowns); wrote {}",
                summary.paths,
                spec.display(),
                summary.elapsed_s,
                summary.precise,
                summary.unsupported,
                summary.fp_paths,
                summary.fp_solved,
                summary.fp_confirmed,
                summary.avm_successes,
                summary.avm_attempts,
                dir.display()
            );
        }
        None => eprintln!("{}", serde_json::to_string(&summary)?),
    }
    Ok(ExitCode::SUCCESS)
}

/// What concrete replay said of the paths, counted.
#[derive(Debug, Default)]
struct ReplayCounts {
    fp_paths: u64,
    solved: u64,
    confirmed: u64,
    fp_solved: u64,
    fp_confirmed: u64,
}

impl ReplayCounts {
    fn add(&mut self, c: &Confirmation) {
        let solved = c.replay != Replay::Unsolved;
        let confirmed = c.replay == Replay::Confirmed;
        self.solved += u64::from(solved);
        self.confirmed += u64::from(confirmed);
        if c.fp {
            self.fp_paths += 1;
            self.fp_solved += u64::from(solved);
            self.fp_confirmed += u64::from(confirmed);
        }
    }

    fn fill(&self, s: &mut ExploreSummary) {
        s.fp_paths = self.fp_paths;
        s.solved = self.solved;
        s.confirmed = self.confirmed;
        s.fp_solved = self.fp_solved;
        s.fp_confirmed = self.fp_confirmed;
    }
}
