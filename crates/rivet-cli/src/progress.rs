//! What `rivet generate` shows on stderr while it runs: for one class a progress bar on a
//! terminal ([`ClassBar`]); for many a line per class done, and on a terminal a live line for
//! the class that last made progress ([`ClassLines`]).

use std::time::Duration;

use rivet_engine::{Event, ProjectEvent};

/// One class's progress bar: its branches covered, phase, executions and time left; nothing
/// when stderr is not a terminal.
pub struct ClassBar {
    terminal: bool,
    bar: Option<indicatif::ProgressBar>,
    budget: Duration,
}

impl ClassBar {
    pub fn new(terminal: bool) -> ClassBar {
        ClassBar {
            terminal,
            bar: None,
            budget: Duration::ZERO,
        }
    }

    /// The class's events (a one-class run's are class 0's).
    pub fn show(&mut self, event: ProjectEvent) {
        let ProjectEvent::Inner { event, .. } = event else {
            return;
        };
        match event {
            Event::Started { branches, budget } => {
                self.budget = budget;
                self.bar = self.terminal.then(|| progress_bar(branches as u64, budget));
            }
            Event::Progress(p) => {
                if let Some(bar) = &self.bar {
                    bar.set_position(p.branches_covered as u64);
                    let left = self.budget.saturating_sub(p.elapsed).as_secs();
                    bar.set_message(format!(
                        "{}: {} executions, {left} s left",
                        p.phase, p.executions
                    ));
                }
            }
            Event::Finishing | Event::Mutating => self.finish(),
        }
    }

    /// Clears the bar (the summary follows).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

fn progress_bar(len: u64, budget: Duration) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} branches {pos}/{len} [{bar:30}] {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("{} s left", budget.as_secs()));
    bar
}

/// Progress on stderr: on a terminal, a live line for the class that last made progress
/// (its branches and phase; several run at once with `--parallel-classes`) and a line per
/// class done; elsewhere (a CI log), only the line per class done.
pub struct ClassLines {
    terminal: bool,
    /// The running classes by index: `[i/n] name`, their branches and budget.
    running: std::collections::BTreeMap<usize, Running>,
    of: usize,
    drawn: Option<std::time::Instant>,
}

struct Running {
    title: String,
    branches: usize,
    budget: std::time::Duration,
}

impl ClassLines {
    pub fn new(terminal: bool) -> ClassLines {
        ClassLines {
            terminal,
            running: std::collections::BTreeMap::new(),
            of: 0,
            drawn: None,
        }
    }

    pub fn show(&mut self, event: ProjectEvent) {
        match event {
            ProjectEvent::Selected { classes } => {
                self.of = classes;
                if self.terminal {
                    eprintln!("rivet: {classes} classes to test")
                }
            }
            ProjectEvent::Class { class, index, of } => {
                let title = format!("[{}/{of}] {class}", index + 1);
                if self.terminal {
                    eprint!("\r\x1b[2K{title} …");
                }
                self.running.insert(
                    index,
                    Running {
                        title,
                        branches: 0,
                        budget: std::time::Duration::ZERO,
                    },
                );
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Started { branches, budget },
            } => {
                if let Some(r) = self.running.get_mut(&index) {
                    (r.branches, r.budget) = (branches, budget);
                }
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Progress(p),
            } if self.terminal => {
                // A few times a second at most: strategies step often.
                let now = std::time::Instant::now();
                if self
                    .drawn
                    .is_some_and(|t| now.duration_since(t).as_millis() < 250)
                {
                    return;
                }
                self.drawn = Some(now);
                let Some(r) = self.running.get(&index) else {
                    return;
                };
                let others = self.running.len() - 1;
                eprint!(
                    "\r\x1b[2K{}: {}/{} branches, {}, {:.0}/{} s{}",
                    r.title,
                    p.branches_covered,
                    r.branches,
                    p.phase,
                    p.elapsed.as_secs_f64(),
                    r.budget.as_secs(),
                    if others > 0 {
                        format!(" (and {others} more running)")
                    } else {
                        String::new()
                    }
                );
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Finishing,
            } if self.terminal => {
                if let Some(r) = self.running.get(&index) {
                    eprint!("\r\x1b[2K{}: verifying …", r.title);
                }
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Mutating,
            } if self.terminal => {
                if let Some(r) = self.running.get(&index) {
                    eprint!("\r\x1b[2K{}: mutation analysis …", r.title);
                }
            }
            ProjectEvent::Inner { .. } => {}
            ProjectEvent::Done { index, entry: e } => {
                self.running.remove(&index);
                let status = match e.status {
                    rivet_report::ClassStatus::Generated => "done",
                    rivet_report::ClassStatus::Skipped => "skipped",
                    rivet_report::ClassStatus::Failed => "failed",
                };
                if self.terminal {
                    eprint!("\r\x1b[2K");
                }
                eprintln!(
                    "rivet: [{}/{}] {status} {}: {}/{} branches, {} tests, {:.1} s",
                    index + 1,
                    self.of,
                    e.class,
                    e.branches_covered,
                    e.branches_total,
                    e.tests,
                    e.elapsed_s
                );
            }
        }
    }
}
