//! Command-line flags of every `rivet` subcommand (the contract of the design brief, §5).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "rivet",
    version,
    about = "Generate JUnit tests for compiled Java classes",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the branches of classes as TSV (class, method, descriptor, branch, offset, line, kind)
    Branches(BranchesArgs),
    /// Instrument every class of directories and jars with branch probes into a directory
    Instrument(InstrumentArgs),
    /// Generate JUnit tests for a class, a package or a whole jar
    Generate(GenerateArgs),
    /// Explore a method symbolically and write its path conditions
    Explore(ExploreArgs),
    /// Score a JUnit 5 or 4 test suite by the mutants of a class it kills (PIT's default mutators)
    Mutate(MutateArgs),
    /// Work on the reports of generate runs
    #[command(subcommand)]
    Report(ReportCommand),
}

#[derive(Debug, Args)]
pub struct MutateArgs {
    /// The classes under test and their dependencies (`:`-separated directories and jars)
    #[arg(long, value_name = "CP")]
    pub classpath: String,
    /// The class whose mutants the tests face
    #[arg(long, value_name = "FQN")]
    pub class: String,
    /// A directory of JUnit test sources (searched recursively)
    #[arg(long, value_name = "DIR")]
    pub tests: PathBuf,
    /// JUnit jars to compile and run the tests with (default: Debian's junit5 and junit4)
    #[arg(long, value_name = "CP")]
    pub test_classpath: Option<String>,
    /// Where the report goes
    #[arg(long, value_name = "FILE", default_value = "rivet-mutation.json")]
    pub report: PathBuf,
    /// Keep the compiled tests, the mutants and the runs' output here
    #[arg(long, value_name = "DIR")]
    pub keep_artifacts: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge the output directories of several runs (shards) into one, with one index report
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output directories of `rivet generate` runs
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged tests and reports go
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Java sources (`:`-separated directories) to show in the HTML report
    #[arg(long, value_name = "DIRS")]
    pub sourcepath: Option<String>,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("selection").required(true).args(["class", "package", "all"])))]
pub struct BranchesArgs {
    /// Classpath: directories and jars separated by ':'
    #[arg(long, value_name = "CP")]
    pub classpath: String,
    /// A class by binary name (`a.b.C`, nested `a.b.Outer$Inner`)
    #[arg(long, value_name = "NAME")]
    pub class: Option<String>,
    /// Every class of this package (not its subpackages)
    #[arg(long, value_name = "PKG")]
    pub package: Option<String>,
    /// Every class on the classpath (the JDK's own classes excluded)
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct InstrumentArgs {
    /// Classpath: directories and jars separated by ':'
    #[arg(long, value_name = "CP")]
    pub classpath: String,
    /// Output directory (created if missing): instrumented classes, copied resources, the
    /// runtime classes, rivet/runtime/switches.bin and rivet-probes.tsv
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("classes").args(["class", "package", "all"])))]
pub struct GenerateArgs {
    /// Classes and their dependencies (`:`-separated directories and jars); with --project,
    /// the dependencies only (default: asked of Maven)
    #[arg(long, value_name = "CP", required_unless_present = "project")]
    pub classpath: Option<String>,
    /// A Maven project (pom.xml; its target/classes) or a Gradle one (build/classes/java/main):
    /// every class by default, tests written to its src/test/java unless --out says otherwise
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// A class to test (repeatable)
    #[arg(long, value_name = "FQN")]
    pub class: Vec<String>,
    /// Every class of this package and its sub-packages
    #[arg(long, value_name = "PKG")]
    pub package: Option<String>,
    /// Every class of the classpath's first entry, or of --target
    #[arg(long)]
    pub all: bool,
    /// With --all: the directory or jar whose classes are tested
    #[arg(long, value_name = "DIR|JAR", requires = "all")]
    pub target: Option<PathBuf>,
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    /// Classes whose branches are goals too, reached through the calls the tests make of the
    /// class under test: a class (with its nested classes), a package, or a name with `*`
    /// wildcards (repeatable)
    #[arg(long, value_name = "PATTERN", value_parser = cover_pattern)]
    pub cover: Vec<rivet_engine::CoverPattern>,
    /// Where the tests go (required without --project)
    #[arg(long, value_name = "DIR", required_unless_present = "project")]
    pub out: Option<PathBuf>,
    /// Seconds per class
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub budget: u64,
    /// Seconds for the whole run (classes get an even share of what is left, at most --budget)
    #[arg(long, value_name = "SECONDS")]
    pub total_budget: Option<u64>,
    /// Take part i of n of the classes (sorted, those to test dealt round-robin), for a CI matrix
    #[arg(long, value_name = "i/n")]
    pub shard: Option<String>,
    /// Classes run at a time, each with its share of the workers (default: one per four
    /// cores, so one below eight cores; at most the classes and the workers)
    #[arg(long, value_name = "N")]
    pub parallel_classes: Option<usize>,
    /// Java sources (`:`-separated directories) to show in the HTML report
    #[arg(long, value_name = "DIRS")]
    pub sourcepath: Option<String>,
    /// Stop the search after this many test executions (besides the time budget)
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
    /// JUnit of the emitted tests (default 5; with --project, the project's)
    #[arg(long, value_name = "5|4", value_parser = ["5", "4"])]
    pub junit: Option<String>,
    #[arg(long, value_name = "CP")]
    pub test_classpath: Option<String>,
    #[arg(long, value_name = "DIR")]
    pub keep_artifacts: Option<PathBuf>,
    /// The strategies: `all` (the default), or one of the registry's (`search` alone, or
    /// another beside the search)
    #[arg(long, default_value = "all", value_parser = strategy_names())]
    pub strategy: String,
    /// What the tests may use: what a test in the class's own package may (public,
    /// protected and package-private members; never private ones), or the public API only
    #[arg(long, value_enum, default_value = "same-package")]
    pub access: Access,
    /// How the concolic strategy picks the next unvisited outcome: depth-first (LCT's
    /// default), breadth-first, priority (the outcome tried least so far, then the shallowest)
    /// or random
    #[arg(long, value_enum, default_value = "dfs")]
    pub concolic_order: ConcolicOrder,
    /// Milliseconds the symbolic executor gets per concolic step (an unvisited outcome, or a
    /// test the search asks about); default 300
    #[arg(long, value_name = "MS")]
    pub concolic_step_ms: Option<u64>,
    /// How the symbolic strategy picks the path conditions it hands to the search: in the
    /// order explored (fifo), SUSHI's set cover of the uncovered branches (cover), TARDIS's
    /// learned feasibility alone (tardis), or the set cover guided by it (cover-tardis)
    #[arg(long, value_enum, default_value = "cover-tardis")]
    pub pc_policy: PcPolicyArg,
    /// The symbolic strategy goes on trying path conditions until the budget is spent, even
    /// once every branch is covered (to compare --pc-policy fifo and tardis on equal time)
    #[arg(long)]
    pub pc_until_budget: bool,
    /// The symbolic strategy explores without heap invariants learned from the tests'
    /// objects (by default it learns them from snapshots and assumes them as hypotheses)
    #[arg(long)]
    pub no_learned_invariants: bool,
    /// Skip the mutation stage (by default the written tests are scored against the class's mutants, PIT's default mutators, within the budget)
    #[arg(long)]
    pub no_mutation: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PcPolicyArg {
    Fifo,
    Cover,
    Tardis,
    CoverTardis,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ConcolicOrder {
    Dfs,
    Bfs,
    Priority,
    Random,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Access {
    SamePackage,
    Public,
}

#[derive(Debug, Args)]
pub struct ExploreArgs {
    #[arg(long, value_name = "CP")]
    pub classpath: String,
    /// The method as `FQN.name(DESCRIPTOR)`
    #[arg(long, value_name = "METHOD")]
    pub method: String,
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Heap scope per class, `CLASS=N` (repeatable)
    #[arg(long = "heap-scope", value_name = "CLASS=N")]
    pub heap_scope: Vec<String>,
    /// Output directory for paths.jsonl and summary.json (default: paths on stdout)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Stop after this many paths
    #[arg(long = "max-paths", value_name = "N")]
    pub max_paths: Option<u64>,
    /// Exploration strategy: dfs (default), bfs, random, new-coverage
    #[arg(long, value_name = "NAME")]
    pub searcher: Option<String>,
    /// Seed of the random searcher
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Invariants file (not-null, alias-only, expand-only, inverse, unshared, range, count
    /// lines; docs/invariants.md), e.g. the symbolic/invariants.txt `rivet generate
    /// --keep-artifacts` writes; none by default
    #[arg(long, value_name = "FILE")]
    pub invariants: Option<PathBuf>,
    /// JDK whose classes are interpreted (default: JAVA_HOME, else the java on PATH)
    #[arg(long, value_name = "DIR")]
    pub jdk: Option<PathBuf>,
    /// Stop exploring after this many seconds
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<u64>,
    /// Trace-guided mode: follow these branch ids of the class (comma-separated, in the
    /// order a concrete run took them); paths that take others are dropped
    #[arg(long, value_name = "IDS")]
    pub trace: Option<String>,
    /// Input strings as symbols (length and characters) instead of opaque values
    #[arg(long = "symbolic-strings")]
    pub symbolic_strings: bool,
    /// Do not confirm paths by concrete replay of a model of their path condition
    #[arg(long = "no-replay")]
    pub no_replay: bool,
    /// Z3's time limit on queries with floats or doubles, in milliseconds (then the
    /// alternating variable method searches a model)
    #[arg(long = "fp-timeout-ms", value_name = "MS")]
    pub fp_timeout_ms: Option<u64>,
    /// No alternating-variable-method fallback when Z3 answers unknown
    #[arg(long = "no-avm")]
    pub no_avm: bool,
    /// Classes whose branches the paths record too, reached through the method's calls: a
    /// class (with its nested classes), a package, or a name with `*` wildcards (repeatable)
    #[arg(long, value_name = "PATTERN", value_parser = cover_pattern)]
    pub cover: Vec<rivet_engine::CoverPattern>,
}

/// What `--strategy` accepts: `all` and the engine's registered strategies.
/// A `--cover` pattern, or why it is not one.
fn cover_pattern(text: &str) -> Result<rivet_engine::CoverPattern, String> {
    rivet_engine::CoverPattern::parse(text).ok_or_else(|| {
        format!("{text:?} is not a class name, a package or a pattern of them (a.b.C, a.b, a.b.C*)")
    })
}

fn strategy_names() -> clap::builder::PossibleValuesParser {
    let mut names = vec!["all"];
    names.extend(rivet_engine::registry().names());
    clap::builder::PossibleValuesParser::new(names)
}
