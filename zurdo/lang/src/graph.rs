//! The dependency graph: unknown ids, self-dependencies, cycles, run order.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::diagnostic::Diagnostic;
use crate::model::Task;
use crate::suggest::closest;

/// Checks `**Depends-on**` across tasks and returns the run order: a
/// topological order with ties broken by document order.
///
/// `invalid_ids` are ids written in headings that failed validation;
/// depending on one is not reported again. Returns an empty order when the
/// graph has errors.
pub(crate) fn run_order(
    tasks: &[Task],
    invalid_ids: &[String],
    errors: &mut Vec<Diagnostic>,
) -> Vec<usize> {
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .rev()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    let before = errors.len();
    let mut deps: Vec<Vec<usize>> = Vec::with_capacity(tasks.len());
    for task in tasks {
        let line = task.metadata.lines.depends_on.max(task.line);
        let mut mine = Vec::with_capacity(task.metadata.depends_on.len());
        for dep in &task.metadata.depends_on {
            if dep == &task.id {
                errors.push(
                    Diagnostic::new(line, format!("task `{}` depends on itself", task.id))
                        .with_fix(format!("remove `{dep}` from its **Depends-on**")),
                );
            } else if let Some(&i) = index.get(dep.as_str()) {
                mine.push(i);
            } else if !invalid_ids.iter().any(|bad| bad == dep) {
                let d = Diagnostic::new(
                    line,
                    format!("task `{}` depends on unknown task `{dep}`", task.id),
                );
                errors.push(match closest(dep, tasks.iter().map(|t| t.id.as_str())) {
                    Some(near) => d.with_fix(format!("did you mean `{near}`?")),
                    None => d.with_fix("name the id of a `## Task:` in this PRD"),
                });
            }
        }
        deps.push(mine);
    }

    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            dependents[d].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..tasks.len())
        .filter(|&i| waiting[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(tasks.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &j in &dependents[i] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(Reverse(j));
            }
        }
    }
    if order.len() < tasks.len() {
        report_cycles(tasks, &deps, &waiting, errors);
    }
    if errors.len() > before {
        Vec::new()
    } else {
        order
    }
}

/// Names each cycle once. Every task left over by Kahn's algorithm waits on
/// another left-over task, so following such dependencies always closes a
/// loop.
fn report_cycles(
    tasks: &[Task],
    deps: &[Vec<usize>],
    waiting: &[usize],
    errors: &mut Vec<Diagnostic>,
) {
    let stuck = |i: usize| waiting[i] > 0;
    let mut done = vec![false; tasks.len()];
    for start in 0..tasks.len() {
        if !stuck(start) || done[start] {
            continue;
        }
        let mut path = vec![start];
        let mut position: HashMap<usize, usize> = HashMap::from([(start, 0)]);
        let cycle_start = loop {
            let Some(&last) = path.last() else { break None };
            let Some(&next) = deps[last].iter().find(|&&d| stuck(d)) else {
                break None;
            };
            if done[next] {
                break None;
            }
            if let Some(&at) = position.get(&next) {
                break Some(at);
            }
            position.insert(next, path.len());
            path.push(next);
        };
        for &p in &path {
            done[p] = true;
        }
        let Some(at) = cycle_start else { continue };
        let cycle = &path[at..];
        let first = cycle.iter().copied().min().unwrap_or(cycle[0]);
        let rotate = cycle.iter().position(|&c| c == first).unwrap_or(0);
        let mut names: Vec<&str> = cycle[rotate..]
            .iter()
            .chain(&cycle[..rotate])
            .map(|&i| tasks[i].id.as_str())
            .collect();
        names.push(tasks[first].id.as_str());
        let task = &tasks[first];
        errors.push(
            Diagnostic::new(
                task.metadata.lines.depends_on.max(task.line),
                format!(
                    "dependency cycle: {} (each depends on the next)",
                    names.join(" -> ")
                ),
            )
            .with_fix("remove one of these dependencies"),
        );
    }
}
