//! `rivet explore`: symbolic exploration of one method; writes `paths.jsonl` (one path per
//! line: id, path condition, branches, end) and `summary.json`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use rivet_classpath::{Classpath, JdkImage};
use rivet_symbolic::{
    ExploreConfig, ExploreSummary, Explorer, Invariants, MethodSpec, PathRecord, SearcherKind,
    SymbolTable, SymbolicError,
};
use serde_json::{json, Value};

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
        config.heap_scope.insert(class.trim().replace('.', "/"), n);
    }
    if let Some(s) = &args.searcher {
        config.searcher = SearcherKind::parse(s).ok_or_else(|| {
            bad_input(format!(
                "--searcher {s:?}: expected dfs, bfs, random or new-coverage"
            ))
        })?;
    }
    config.seed = args.seed;
    if let Some(path) = &args.invariants {
        let text = std::fs::read_to_string(path)
            .map_err(|e| bad_input(format!("--invariants {}: {e}", path.display())))?;
        config.invariants = Invariants::parse(&text)
            .map_err(|e| bad_input(format!("--invariants {}: {e}", path.display())))?;
    }
    config.time_budget = args.budget.map(Duration::from_secs);
    if let Some(trace) = &args.trace {
        let ids = trace
            .split(',')
            .filter(|t| !t.trim().is_empty())
            .map(|t| t.trim().parse::<u32>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| bad_input(format!("--trace {trace:?}: expected branch ids like 1,3,4")))?;
        config.trace = Some(ids);
    }
    Ok(config)
}

/// One path as a JSON object.
pub fn path_json(path: &PathRecord, symbols: &SymbolTable) -> Value {
    let pc: Vec<Value> = path
        .pc
        .iter()
        .map(|c| json!({ "kind": c.kind().name(), "text": c.text(symbols) }))
        .collect();
    let mut v = json!({
        "id": path.id,
        "pc": pc,
        "branches": path.branches,
        "end": path.end_text(),
    });
    if let Some(map) = v.as_object_mut() {
        if let Some(reason) = path.bound_reason() {
            map.insert("reason".into(), json!(reason));
        }
        // The path used results of calls that were not followed: its PC may not describe
        // what a concrete run does.
        if path.imprecise {
            map.insert("imprecise".into(), json!(true));
        }
    }
    v
}

pub fn summary_json(method: &str, s: &ExploreSummary) -> Value {
    json!({
        "method": method,
        "paths": s.paths,
        "pruned": s.pruned,
        "elapsed_s": s.elapsed.as_secs_f64(),
        "solver_calls": s.solver_calls,
        "solver_s": s.solver_time.as_secs_f64(),
        "paths_per_s": s.paths_per_s(),
        "returns": s.returns,
        "exceptions": s.exceptions,
        "bounded": s.bounded,
        "truncated": s.truncated,
        "backend_calls": s.backend_calls,
        "backend_s": s.backend_time.as_secs_f64(),
        "cache_hits": s.cache_hits,
        "fast_unsat": s.fast_unsat,
        "interval_decided": s.interval_decided,
        "model_searches": s.model_searches,
        "unknown": s.unknown,
        "not_followed": s.not_followed,
    })
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
    let explorer = Explorer::new(classpath, config);
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
    let result = explorer.explore(&spec, &mut |path, symbols| {
        if write_error.is_none() {
            if let Err(e) = writeln!(out, "{}", path_json(path, symbols)) {
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
    let summary = summary_json(&spec.display(), &summary);
    match &args.out {
        Some(dir) => {
            let file: PathBuf = dir.join("summary.json");
            std::fs::write(&file, format!("{summary:#}\n"))
                .with_context(|| format!("write {}", file.display()))?;
            eprintln!(
                "rivet: explored {} paths of {} in {:.2} s; wrote {}",
                summary["paths"],
                spec.display(),
                summary["elapsed_s"].as_f64().unwrap_or(0.0),
                dir.display()
            );
        }
        None => eprintln!("{summary}"),
    }
    Ok(ExitCode::SUCCESS)
}
