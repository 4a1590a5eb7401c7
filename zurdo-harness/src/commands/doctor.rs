//! `zurdo doctor`: checks the config, shows each provider's CLI as it is
//! offline (installed or not and its version, logged in or not where the
//! CLI has a cheap offline check, the models it lists where it can), and
//! probes every effort-map model of the executor, its fallbacks, the
//! escalation ladder's rungs, the analyzer, the reasoner and the
//! challenger (and their fallbacks), all at once; then says what the probes showed of each
//! provider (authenticated or not, where no offline check could tell).
//! Writes nothing.

use std::path::Path;

use crate::agent::catalog::{self, Listing, Login};
use crate::agent::{invoke, Provider};
use crate::cli::DoctorArgs;
use crate::config::Config;
use crate::error::{Exit, Outcome};
use crate::escalation::Rung;
use crate::run::probe::{self, Target};

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
    if !config.executor_fallback.is_empty() {
        let chain: Vec<&str> = config.executor_fallback.iter().map(|p| p.name()).collect();
        println!("executor fallback: {}", chain.join(", "));
    }
    if let Some(c) = &config.challenger {
        // Which model reads the agent's diff, and, when the table left it
        // out, how zurdo chose it (the author never grades its own work).
        let chosen = c
            .chosen
            .as_deref()
            .map(|how| format!(" (chosen: {how})"))
            .unwrap_or_default();
        let same = if c.role.provider == config.executor {
            "; the executor's provider too (allowed, though a different one is the point)"
        } else {
            ""
        };
        println!(
            "challenger: {}/{}{chosen}{same}",
            c.role.provider.name(),
            c.role.model
        );
    }
    for (name, role) in [
        ("analyzer", config.analyzer.as_ref()),
        ("reasoner", config.reasoner.as_ref()),
        ("challenger", config.challenger.as_ref().map(|c| &c.role)),
    ] {
        if let Some(role) = role.filter(|r| !r.fallback.is_empty()) {
            let seats: Vec<String> = role
                .fallback
                .iter()
                .map(|s| format!("{}/{}", s.provider.name(), s.model))
                .collect();
            println!("{name} fallback: {}", seats.join(", "));
        }
    }
    if let Some(e) = &config.escalation {
        let rungs: Vec<String> = e.ladder.iter().map(|r| r.name()).collect();
        println!(
            "escalation: {} (a task climbs one rung on each {})",
            rungs.join(" → "),
            e.climb_on.name()
        );
    }
    if args.skip_probes {
        println!("probes skipped");
        return Ok(Exit::Ok);
    }
    providers(&config);
    Ok(Exit::ok_if(probe_all(&config, &root)))
}

/// Prints each provider's state, from offline checks run at once.
pub fn providers(config: &Config) {
    let list: Vec<(Provider, String)> = Provider::ALL
        .iter()
        .map(|&p| (p, config.command(p).to_string()))
        .collect();
    println!("providers:");
    for state in catalog::inspect_all(&list) {
        print!("{}", provider_lines(&state));
    }
}

/// How one provider's state reads: a line, and (when its CLI answered)
/// its login and its models.
pub fn provider_lines(state: &catalog::State) -> String {
    let p = state.provider;
    let cli = p.default_command();
    let mut out = format!("  {} (`{}`): ", p.name(), state.command);
    let version = match &state.version {
        Ok(v) => v,
        Err(why) => {
            out.push_str(why);
            out.push('\n');
            return out;
        }
    };
    out.push_str(&format!("installed, {version}\n"));
    let check = catalog::login_check(p).map(|a| format!("`{cli} {}`", a.join(" ")));
    let login = match (&state.login, check) {
        (Login::LoggedIn(w), Some(c)) => format!("logged in ({c}: {w})"),
        (Login::LoggedOut(w), Some(c)) => format!("NOT logged in ({c}: {w})"),
        (Login::Unclear(w), Some(c)) => format!("unknown ({c}: {w})"),
        _ => format!("{cli} has no offline check; the probe tells"),
    };
    out.push_str(&format!("    login: {login}\n"));
    let lister = catalog::lister(p).map(|a| format!("`{cli} {}`", a.join(" ")));
    let models = match (&state.models, lister) {
        (Listing::Listed(models), Some(l)) => {
            let shown: Vec<&str> = models
                .iter()
                .filter(|m| m.visible)
                .map(|m| m.slug.as_str())
                .collect();
            format!(
                "{} ({l}; {} shown, {} hidden)",
                shown.join(", "),
                shown.len(),
                models.len() - shown.len()
            )
        }
        (Listing::Failed(why), Some(l)) => format!("{l} failed: {why}"),
        _ => format!("{cli} cannot list its models offline"),
    };
    out.push_str(&format!("    models: {models}\n"));
    out
}

/// Probes every effort-map model of the executor, its fallbacks and
/// rungs, the analyzer, the reasoner and the challenger, each distinct model once and all at once: a `probing` line
/// for each first, then one result line per entry, in the order of the
/// entries (an entry's line waits for the entries before it). True when
/// all answered.
pub fn probe_all(config: &Config, root: &Path) -> bool {
    // A stop (Ctrl-C, SIGTERM) kills every probe running then, whatever it
    // started, before exiting.
    let guard = invoke::KillOnSignal::install();
    // The efforts `zurdo init` writes first, in their order; any other after.
    let mut efforts: Vec<(&String, &String)> = config
        .effort_map
        .get(&config.executor)
        .map(|m| m.iter().collect())
        .unwrap_or_default();
    efforts.sort_by_key(|(effort, _)| {
        catalog::EFFORTS
            .iter()
            .position(|e| e == effort)
            .unwrap_or(catalog::EFFORTS.len())
    });
    let keys: Vec<String> = efforts.iter().map(|(e, _)| e.to_string()).collect();
    let mut entries: Vec<(String, Provider, String)> = efforts
        .into_iter()
        .map(|(effort, model)| (format!("effort {effort}"), config.executor, model.clone()))
        .collect();
    for p in &config.executor_fallback {
        for key in &keys {
            if let Some(model) = config.model_of(*p, key) {
                entries.push((format!("fallback effort {key}"), *p, model.to_string()));
            }
        }
    }
    if let Some(e) = &config.escalation {
        for rung in &e.ladder {
            match rung {
                Rung::Effort(key) => {
                    for p in config.executor_chain() {
                        if let Some(model) = config.model_of(p, key) {
                            entries.push((format!("ladder {}", rung.name()), p, model.to_string()));
                        }
                    }
                }
                Rung::Provider(p) => {
                    for key in &keys {
                        if let Some(model) = config.model_of(*p, key) {
                            entries.push((
                                format!("ladder {} effort {key}", rung.name()),
                                *p,
                                model.to_string(),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for (name, role) in [
        ("analyzer", config.analyzer.as_ref()),
        ("reasoner", config.reasoner.as_ref()),
        ("challenger", config.challenger.as_ref().map(|c| &c.role)),
    ] {
        let Some(role) = role else { continue };
        for (i, seat) in role.chain().into_iter().enumerate() {
            let label = if i == 0 {
                name.to_string()
            } else {
                format!("{name} fallback")
            };
            entries.push((label, seat.provider, seat.model));
        }
    }
    // Each entry's target: a distinct provider and model is probed once.
    let mut targets: Vec<Target> = Vec::new();
    let mut of_entry: Vec<usize> = Vec::new();
    for (_, provider, model) in &entries {
        let target = Target {
            provider: *provider,
            command: config.command(*provider).to_string(),
            model: model.clone(),
        };
        let index = match targets.iter().position(|t| *t == target) {
            Some(i) => i,
            None => {
                targets.push(target);
                targets.len() - 1
            }
        };
        of_entry.push(index);
    }
    println!("probes (all at once; results in this order):");
    for (i, t) in targets.iter().enumerate() {
        let labels: Vec<&str> = entries
            .iter()
            .zip(&of_entry)
            .filter(|(_, &e)| e == i)
            .map(|((label, _, _), _)| label.as_str())
            .collect();
        println!(
            "  probing {} {} ({}) …",
            t.provider.name(),
            t.model,
            labels.join(", ")
        );
    }
    let mut next = 0;
    let mut seen: Vec<probe::Probed> = Vec::new();
    let results = probe::probe_all(&targets, root, guard.groups(), |_, probed| {
        // Results come in target order: every entry whose target is done
        // by now is printed, in entry order.
        seen.push(probed.clone());
        while let Some(result) = of_entry.get(next).and_then(|&t| seen.get(t)) {
            let (label, provider, model) = &entries[next];
            let first = of_entry[..next].iter().all(|&e| e != of_entry[next]);
            print_result(label, *provider, model, result, first);
            next += 1;
        }
    });
    guard.hold_if_stopping();
    print!("{}", provider_states(&targets, &results));
    results.iter().all(probe::Probed::ok)
}

/// What the probes showed of each provider they asked: it works (a model
/// answered, so its CLI is installed and authenticated), it is not
/// authenticated, it cannot work for another reason, or it works but no
/// probed model answered.
pub fn provider_states(targets: &[Target], results: &[probe::Probed]) -> String {
    let mut out = String::from("provider states (from the probes):\n");
    let mut seen: Vec<Provider> = Vec::new();
    for t in targets {
        if !seen.contains(&t.provider) {
            seen.push(t.provider);
        }
    }
    for p in seen {
        let probed: Vec<&probe::Probed> = targets
            .iter()
            .zip(results)
            .filter(|(t, _)| t.provider == p)
            .map(|(_, r)| r)
            .collect();
        let answered = probed.iter().filter(|r| r.ok()).count();
        let agent = probed.iter().find_map(|r| match &r.error {
            Some(probe::ProbeError::Agent(f)) => Some(f),
            _ => None,
        });
        let state = match (answered, agent) {
            (n, _) if n > 0 => format!(
                "authenticated and working ({n} of {} probed model{} answered)",
                probed.len(),
                if probed.len() == 1 { "" } else { "s" }
            ),
            (_, Some(f)) if f.kind == crate::agent::failure::FailureKind::AuthFailed => {
                format!("NOT authenticated{}; {}", f.quoted(), f.remedy())
            }
            (_, Some(f)) => format!(
                "cannot work: {}{}; {}",
                f.kind.headline(),
                f.quoted(),
                f.remedy()
            ),
            (_, None) => "its CLI ran, but no probed model answered (see above)".to_string(),
        };
        out.push_str(&format!("  {}: {state}\n", p.name()));
    }
    out
}

fn print_result(label: &str, provider: Provider, model: &str, probed: &probe::Probed, first: bool) {
    let again = if first { "" } else { " (probed once above)" };
    let secs = probed.elapsed.as_secs_f64();
    match &probed.error {
        None => println!(
            "  {label}: {} {model}: ok ({secs:.1}s){again}",
            provider.name()
        ),
        Some(e) => println!(
            "  {label}: {} {model}: FAILED ({secs:.1}s) — {e}{again}",
            provider.name()
        ),
    }
    if first {
        for w in &probed.warnings {
            println!("    warning: {w}");
        }
    }
}
