//! Instrumenting a whole user classpath (directories and jars) into one directory: classes
//! under their package paths, every other file (resources) copied, then the runtime classes,
//! `rivet/runtime/switches.bin` and `rivet-probes.tsv`. Where entries overlap, the first entry
//! on the classpath wins, as for the JVM.
//!
//! Three passes: plan the classes that get probes (parse and analyse, in parallel), number
//! them ([`ProbeMap::assign`]: sorted by class name, so the ids do not depend on thread
//! timing), then instrument and write every file (in parallel).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rivet_classfile::{ClassFile, ClassName};
use rivet_classpath::name::{class_name_of_path, is_listable};
use rivet_classpath::ClasspathEntry;

use crate::error::InstrumentError;
use crate::instrument::{encode_switch_tables, instrument_class, switch_tables, SwitchTable};
use crate::par::{par_map, threads};
use crate::plan::{plan_class, ClassPlan};
use crate::probes::{ProbeMap, ProbeRange};
use crate::runtime::{runtime_classes, RUNTIME_PACKAGE, SWITCHES_RESOURCE};

/// Name of the probe listing written next to the classes.
pub const PROBES_TSV: &str = "rivet-probes.tsv";

/// Which classes get branch probes. Calls of `System.exit` and friends are redirected in every
/// class of the classpath either way.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProbeScope {
    /// Every class of the classpath.
    #[default]
    All,
    /// These classes and the classes nested in them (`a.b.C$D`).
    Classes(Vec<ClassName>),
}

impl ProbeScope {
    /// Does the class (internal name) get probes?
    pub fn includes(&self, internal: &str) -> bool {
        match self {
            ProbeScope::All => true,
            ProbeScope::Classes(list) => {
                let class = ClassName::from_internal(internal);
                list.iter().any(|c| class == *c || class.is_nested_in(c))
            }
        }
    }

    /// A stable text form, for cache keys.
    pub(crate) fn key(&self) -> String {
        match self {
            ProbeScope::All => "all".into(),
            ProbeScope::Classes(list) => {
                let mut l: Vec<&str> = list.iter().map(ClassName::internal).collect();
                l.sort();
                l.dedup();
                format!("classes {}", l.join(","))
            }
        }
    }
}

/// How to instrument a classpath.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstrumentConfig {
    pub scope: ProbeScope,
    /// Worker threads (0: one per available core).
    pub threads: usize,
    /// How many entries `instrument_cached` keeps under its cache root.
    pub cache: crate::cache_lru::CacheLimit,
}

/// A class that was written without probes, or unchanged, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The class (binary name) or, when it does not parse, its file.
    pub class: String,
    pub reason: String,
}

/// What instrumenting a classpath did.
#[derive(Debug, Clone, Default)]
pub struct InstrumentReport {
    /// The probe ids of the classes that got probes.
    pub probes: ProbeMap,
    /// Class files written (instrumented, redirected or unchanged).
    pub classes: usize,
    /// Classes that got probes.
    pub probed: usize,
    /// Probe calls inserted.
    pub probe_sites: usize,
    /// Switches with a table in `switches.bin`.
    pub switches: usize,
    /// Exit calls redirected.
    pub exits: usize,
    /// Backward jumps of classes without probes given a loop watch.
    pub loop_sites: usize,
    /// Other files copied.
    pub resources: usize,
    /// Class files that do not parse: copied unchanged.
    pub unreadable: Vec<Skipped>,
    /// Classes in scope that could not get probes (analysis or layout failed, or already
    /// instrumented): written with their exit calls redirected where possible, else unchanged.
    pub unprobed: Vec<Skipped>,
}

/// One file of the classpath.
struct Input {
    /// Path relative to the classpath root, `/`-separated.
    rel: String,
    source: Source,
}

enum Source {
    File(PathBuf),
    Jar { entry: usize, index: usize },
}

/// Opens the entries and lists their files, first entry winning.
struct Inputs {
    entries: Vec<ClasspathEntry>,
    files: Vec<Input>,
}

impl Inputs {
    fn open(paths: &[PathBuf]) -> Result<Inputs, InstrumentError> {
        let entries = paths
            .iter()
            .map(|p| ClasspathEntry::open(p))
            .collect::<Result<Vec<_>, _>>()?;
        let mut seen = HashSet::new();
        let mut files = Vec::new();
        for (e, entry) in entries.iter().enumerate() {
            match entry {
                ClasspathEntry::Directory(dir) => {
                    let mut found = Vec::new();
                    walk(dir, "", 0, &mut found)?;
                    for (rel, path) in found {
                        if seen.insert(rel.clone()) {
                            files.push(Input {
                                rel,
                                source: Source::File(path),
                            });
                        }
                    }
                }
                ClasspathEntry::Jar(zip) => {
                    for index in 0..zip.len() {
                        let Some(name) = zip.name_at(index) else {
                            continue;
                        };
                        if name.ends_with('/') {
                            continue;
                        }
                        if !safe_relative(name) {
                            tracing::warn!(jar = %zip.path().display(), entry = name, "unsafe jar entry name; not copied");
                            continue;
                        }
                        if seen.insert(name.to_string()) {
                            files.push(Input {
                                rel: name.to_string(),
                                source: Source::Jar { entry: e, index },
                            });
                        }
                    }
                }
            }
        }
        Ok(Inputs { entries, files })
    }

    fn read(&self, input: &Input) -> Result<Vec<u8>, InstrumentError> {
        match &input.source {
            Source::File(path) => {
                std::fs::read(path).map_err(|e| InstrumentError::io(path.clone(), e))
            }
            Source::Jar { entry, index } => match self.entries.get(*entry) {
                Some(ClasspathEntry::Jar(zip)) => {
                    zip.read_at(*index).map_err(|e| InstrumentError::JarEntry {
                        jar: zip.path().to_path_buf(),
                        entry: input.rel.clone(),
                        reason: e.to_string(),
                    })
                }
                _ => Err(InstrumentError::JarEntry {
                    jar: PathBuf::new(),
                    entry: input.rel.clone(),
                    reason: "no such jar".into(),
                }),
            },
        }
    }

    /// Where the file comes from, for messages.
    fn shown(&self, input: &Input) -> String {
        match &input.source {
            Source::File(p) => p.display().to_string(),
            Source::Jar { entry, .. } => match self.entries.get(*entry) {
                Some(e) => format!("{}!{}", e.path().display(), input.rel),
                None => input.rel.clone(),
            },
        }
    }
}

/// Directory nesting beyond which a walk stops (symbolic-link cycles).
const MAX_DEPTH: usize = 64;

/// Collects (relative path, file path) of every file under `dir`, sorted.
pub(crate) fn walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    out: &mut Vec<(String, PathBuf)>,
) -> Result<(), InstrumentError> {
    let io = |e| InstrumentError::io(dir, e);
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(io)?;
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let Ok(name) = e.file_name().into_string() else {
            tracing::warn!(dir = %dir.display(), "file name is not UTF-8; not copied");
            continue;
        };
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let path = e.path();
        // Symbolic links are followed, as the JVM does.
        if path.is_dir() {
            if depth < MAX_DEPTH {
                walk(&path, &rel, depth + 1, out)?;
            }
        } else if path.is_file() {
            out.push((rel, path));
        }
    }
    Ok(())
}

/// A relative `/`-separated path that stays inside the directory it is joined to.
fn safe_relative(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.contains(['\\', '\0', ':'])
        && name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// The internal name of a class file that may be instrumented: a listable class outside
/// `java/` (only the JDK defines those) and outside Rivet's own runtime.
fn instrumentable(rel: &str) -> Option<&str> {
    let name = class_name_of_path(rel)?;
    (is_listable(name) && !name.starts_with("java/") && !name.starts_with(RUNTIME_PACKAGE))
        .then_some(name)
}

/// Writes `out/rel`; its directory is normally made beforehand by [`make_dirs`].
fn write_file(out: &Path, rel: &str, bytes: &[u8]) -> Result<(), InstrumentError> {
    let path = out.join(rel);
    match std::fs::write(&path, bytes) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| InstrumentError::io(parent, e))?;
            }
            std::fs::write(&path, bytes).map_err(|e| InstrumentError::io(path, e))
        }
        r => r.map_err(|e| InstrumentError::io(path, e)),
    }
}

/// Creates the directories of all the files to write, each once.
fn make_dirs<'a>(out: &Path, rels: impl Iterator<Item = &'a str>) -> Result<(), InstrumentError> {
    let dirs: std::collections::BTreeSet<&str> = rels
        .filter_map(|r| r.rsplit_once('/').map(|(d, _)| d))
        .collect();
    for d in dirs {
        let path = out.join(d);
        std::fs::create_dir_all(&path).map_err(|e| InstrumentError::io(path, e))?;
    }
    Ok(())
}

/// What happened to one file.
enum Outcome {
    Resource,
    Class {
        probed: Option<(usize, Vec<SwitchTable>)>,
        exits: usize,
        loops: usize,
        unprobed: Option<Skipped>,
        unreadable: Option<Skipped>,
    },
    /// Left out (our own runtime files, rewritten at the end).
    Ignored,
}

/// Instruments every class of the classpath `entries` (directories and jars, in order) into
/// `out` (created if needed), with the runtime classes, `switches.bin` and
/// [`PROBES_TSV`]. Classes that cannot be read or analysed are copied unchanged (or with only
/// their exit calls redirected) and reported, never fatal; unreadable entries, unwritable
/// files and a build without runtime classes are errors.
pub fn instrument_classpath(
    entries: &[PathBuf],
    out: &Path,
    config: &InstrumentConfig,
) -> Result<InstrumentReport, InstrumentError> {
    if runtime_classes().is_empty() {
        return Err(InstrumentError::NoRuntime);
    }
    let inputs = Inputs::open(entries)?;
    let threads = threads(config.threads);
    std::fs::create_dir_all(out).map_err(|e| InstrumentError::io(out, e))?;

    // Pass 1: plan the classes in scope.
    let in_scope: Vec<(usize, &str)> = inputs
        .files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| instrumentable(&f.rel).map(|n| (i, n)))
        .filter(|(_, n)| config.scope.includes(n))
        .collect();
    let planned: Vec<Option<Result<ClassPlan, String>>> = par_map(&in_scope, threads, |(i, _)| {
        let bytes = inputs.read(&inputs.files[*i]).ok()?;
        let cf = ClassFile::parse(&bytes).ok()?;
        Some(plan_class(&cf).map_err(|e| e.to_string()))
    });

    // Pass 2: number them.
    let mut plan_of: Vec<Option<Result<usize, String>>> =
        (0..inputs.files.len()).map(|_| None).collect();
    let mut plans = Vec::new();
    for ((i, _), p) in in_scope.iter().zip(planned) {
        plan_of[*i] = p.map(|r| {
            r.map(|plan| {
                plans.push(plan);
                plans.len() - 1
            })
        });
    }
    let (mut probes, ranges) = ProbeMap::assign(&plans)?;

    // Pass 3: write everything.
    make_dirs(
        out,
        inputs
            .files
            .iter()
            .map(|f| f.rel.as_str())
            .chain(runtime_classes().iter().map(|(n, _)| *n)),
    )?;
    let indexes: Vec<usize> = (0..inputs.files.len()).collect();
    let outcomes = par_map(&indexes, threads, |&i| {
        let input = &inputs.files[i];
        let planned = plan_of[i].as_ref().map(|r| {
            r.as_ref()
                .map(|&p| (&plans[p], ranges[p]))
                .map_err(String::as_str)
        });
        write_one(&inputs, input, planned, out)
    });

    let mut report = InstrumentReport::default();
    let mut tables = Vec::new();
    for o in outcomes {
        match o? {
            Outcome::Resource => report.resources += 1,
            Outcome::Ignored => {}
            Outcome::Class {
                probed,
                exits,
                loops,
                unprobed,
                unreadable,
            } => {
                report.classes += 1;
                report.exits += exits;
                report.loop_sites += loops;
                if let Some((sites, t)) = probed {
                    report.probed += 1;
                    report.probe_sites += sites;
                    tables.extend(t);
                }
                if let Some(s) = unprobed {
                    probes.remove_class(&s.class);
                    report.unprobed.push(s);
                }
                report.unreadable.extend(unreadable);
            }
        }
    }
    // Classes that were planned but did not parse the second time have no probes either.
    for s in &report.unreadable {
        probes.remove_class(&s.class);
    }
    tables.sort_by_key(|t| t.id);
    report.switches = tables.len();
    for (name, bytes) in runtime_classes() {
        write_file(out, &format!("{name}.class"), bytes)?;
    }
    write_file(out, SWITCHES_RESOURCE, &encode_switch_tables(&tables))?;
    write_file(out, PROBES_TSV, probes.to_tsv().as_bytes())?;
    report.probes = probes;
    tracing::info!(
        out = %out.display(),
        classes = report.classes,
        probed = report.probed,
        probes = report.probes.probe_count(),
        switches = report.switches,
        exits = report.exits,
        loop_sites = report.loop_sites,
        resources = report.resources,
        "instrumented classpath"
    );
    Ok(report)
}

/// Instruments (or copies) one file into `out`.
fn write_one(
    inputs: &Inputs,
    input: &Input,
    planned: Option<Result<(&ClassPlan, ProbeRange), &str>>,
    out: &Path,
) -> Result<Outcome, InstrumentError> {
    if input.rel == SWITCHES_RESOURCE || input.rel == PROBES_TSV {
        return Ok(Outcome::Ignored);
    }
    if input.rel.ends_with(".class") && input.rel.starts_with(RUNTIME_PACKAGE) {
        return Ok(Outcome::Ignored);
    }
    let bytes = inputs.read(input)?;
    if instrumentable(&input.rel).is_none() {
        write_file(out, &input.rel, &bytes)?;
        return Ok(Outcome::Resource);
    }
    let mut outcome = Outcome::Class {
        probed: None,
        exits: 0,
        loops: 0,
        unprobed: None,
        unreadable: None,
    };
    let Outcome::Class {
        probed,
        exits,
        loops,
        unprobed,
        unreadable,
    } = &mut outcome
    else {
        return Ok(outcome);
    };
    let mut cf = match ClassFile::parse(&bytes) {
        Ok(cf) => cf,
        Err(e) => {
            let shown = inputs.shown(input);
            tracing::warn!(class = %shown, error = %e, "class does not parse; copied unchanged");
            *unreadable = Some(Skipped {
                class: shown,
                reason: e.to_string(),
            });
            write_file(out, &input.rel, &bytes)?;
            return Ok(outcome);
        }
    };
    let class = ClassName::from_internal(cf.name().unwrap_or("?"));
    let mut result = match planned {
        Some(Ok((plan, range))) => instrument_class(&mut cf, Some((plan, range))).map(|o| {
            if o.probe_sites > 0 {
                *probed = Some((o.probe_sites, switch_tables(plan, range)));
            }
            (o.exits, o.loop_sites)
        }),
        Some(Err(reason)) => {
            *unprobed = Some(Skipped {
                class: class.binary(),
                reason: reason.to_string(),
            });
            instrument_class(&mut cf, None).map(|o| (o.exits, o.loop_sites))
        }
        None => instrument_class(&mut cf, None).map(|o| (o.exits, o.loop_sites)),
    };
    if let (Err(e), Some(Ok(_))) = (&result, planned) {
        // Without probes, then: only the exit calls.
        *probed = None;
        *unprobed = Some(Skipped {
            class: class.binary(),
            reason: e.to_string(),
        });
        result = ClassFile::parse(&bytes)
            .map_err(|source| InstrumentError::Parse {
                class: Some(class.clone()),
                source: Box::new(source),
            })
            .and_then(|mut fresh| {
                let r = instrument_class(&mut fresh, None).map(|o| (o.exits, o.loop_sites));
                cf = fresh;
                r
            });
    }
    if let Some(s) = unprobed.as_ref() {
        tracing::warn!(class = %s.class, reason = %s.reason, "class gets no probes");
    }
    let written = match result {
        Ok((0, 0)) if probed.is_none() => None,
        // Neither probes nor exit calls: the loop watches alone (the class's other calls and
        // static state are left as they are, as in a class with no loop).
        Ok((0, _)) if probed.is_none() => {
            let watched = watched_loops_only(&bytes);
            *loops = watched.as_ref().map_or(0, |(n, _)| *n);
            watched.map(|(_, b)| b)
        }
        Ok((n, watched)) => {
            *exits = n;
            *loops = watched;
            match cf.to_bytes() {
                Ok(b) => Some(b),
                Err(e) => {
                    tracing::warn!(class = %class, error = %e, "class cannot be written; copied unchanged");
                    *probed = None;
                    *exits = 0;
                    *loops = 0;
                    *unprobed = Some(Skipped {
                        class: class.binary(),
                        reason: e.to_string(),
                    });
                    None
                }
            }
        }
        Err(e) => {
            tracing::warn!(class = %class, error = %e, "class copied unchanged");
            if unprobed.is_none() {
                *unprobed = Some(Skipped {
                    class: class.binary(),
                    reason: e.to_string(),
                });
            }
            None
        }
    };
    write_file(out, &input.rel, written.as_deref().unwrap_or(&bytes))?;
    Ok(outcome)
}

/// The class of `bytes` with only its loops watched ([`crate::watch_loops`]): the number of
/// watches and the new bytes, or None when there is none or the class cannot be rewritten.
fn watched_loops_only(bytes: &[u8]) -> Option<(usize, Vec<u8>)> {
    let mut cf = ClassFile::parse(bytes).ok()?;
    let n = crate::loops::watch_loops(&mut cf);
    if n == 0 {
        return None;
    }
    cf.to_bytes().ok().map(|b| (n, b))
}
