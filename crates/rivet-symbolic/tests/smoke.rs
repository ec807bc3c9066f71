//! Temporary smoke test printing paths.
mod support;
use rivet_symbolic::ExploreConfig;

#[test]
fn print_paths() {
    let m = std::env::var("SMOKE").unwrap_or_else(|_| "lct.Examples.figure1(II)I".into());
    let mut config = ExploreConfig::default();
    if let Ok(s) = std::env::var("SCOPE") {
        for kv in s.split(',') {
            let (k, v) = kv.split_once('=').unwrap();
            config
                .heap_scope
                .insert(k.replace('.', "/"), v.parse().unwrap());
        }
    }
    if let Ok(d) = std::env::var("DEPTH") {
        config.depth = d.parse().unwrap();
    }
    if let Ok(d) = std::env::var("MAXP") {
        config.max_paths = d.parse().unwrap();
    }
    let (paths, summary) = support::explore(&m, config);
    for p in paths.iter().take(40) {
        println!("{}  {:?}", p.show(), p.record.bound_reason());
    }
    println!("{summary:?} {}", summary.paths_per_s());
}
