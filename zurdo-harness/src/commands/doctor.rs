//! `zurdo doctor`: checks the config and probes every effort-map model of
//! the executor, the analyzer and the reasoner. Writes nothing.

use std::path::Path;

use crate::agent::invoke;
use crate::cli::DoctorArgs;
use crate::config::Config;
use crate::error::{Exit, Outcome};
use crate::run::probe;

/// Runs the command and returns its exit status.
pub fn run(args: &DoctorArgs) -> Outcome {
    let root = super::repo_here()?;
    let config = Config::load(&root)?;
    match &config.source {
        Some(path) => println!("config: {} (valid)", path.display()),
        None => println!("config: none; using the defaults `zurdo init` would write"),
    }
    println!(
        "executor: {} (`{}`)",
        config.executor.name(),
        config.command(config.executor)
    );
    if args.skip_probes {
        println!("probes skipped");
        return Ok(Exit::Ok);
    }
    Ok(Exit::ok_if(probe_all(&config, &root)))
}

/// Probes every effort-map model of the executor, the analyzer and the
/// reasoner; prints
/// one line each. True when all answered.
pub fn probe_all(config: &Config, root: &Path) -> bool {
    // A stop (Ctrl-C, SIGTERM) kills the probe running then, whatever it
    // started, before exiting.
    let guard = invoke::KillOnSignal::install();
    let mut targets: Vec<(String, crate::agent::Provider, String)> = config
        .effort_map
        .get(&config.executor)
        .map(|m| {
            m.iter()
                .map(|(effort, model)| (format!("effort {effort}"), config.executor, model.clone()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(a) = &config.analyzer {
        targets.push(("analyzer".to_string(), a.provider, a.model.clone()));
    }
    if let Some(r) = &config.reasoner {
        targets.push(("reasoner".to_string(), r.provider, r.model.clone()));
    }
    let mut all_ok = true;
    let mut probed: Vec<(crate::agent::Provider, String, bool)> = Vec::new();
    for (label, provider, model) in targets {
        let ok = match probed
            .iter()
            .find(|(p, m, _)| *p == provider && *m == model)
        {
            Some((_, _, ok)) => {
                println!(
                    "  {label}: {} {model}: {} (probed above)",
                    provider.name(),
                    if *ok { "ok" } else { "FAILED" }
                );
                *ok
            }
            None => {
                let outcome =
                    probe::probe(provider, config.command(provider), &model, root, |pid| {
                        guard.set(pid)
                    });
                guard.set(0);
                guard.hold_if_stopping();
                match &outcome {
                    Ok(warnings) => {
                        println!("  {label}: {} {model}: ok", provider.name());
                        warnings.iter().for_each(|w| println!("    warning: {w}"));
                    }
                    Err(e) => println!("  {label}: {} {model}: FAILED — {e}", provider.name()),
                }
                probed.push((provider, model.clone(), outcome.is_ok()));
                outcome.is_ok()
            }
        };
        all_ok &= ok;
    }
    all_ok
}
