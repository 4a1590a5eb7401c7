//! `non-local-http`: an `[http:]` hint aimed at another machine. Its
//! verdict depends on a remote service and the network between, not on
//! the work the task did.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{Lint, NON_LOCAL_HTTP};
use crate::hint::Check;
use crate::model::Prd;

/// Reports every `[http:]` hint whose host is not this machine.
pub(crate) fn check(prd: &Prd, out: &mut Vec<Lint>) {
    for criterion in prd.tasks.iter().flat_map(|t| &t.criteria) {
        for hint in &criterion.hints {
            let Check::Http(http) = &hint.check else {
                continue;
            };
            if is_local(&http.host) {
                continue;
            }
            out.push(Lint::new(
                NON_LOCAL_HTTP,
                criterion.line,
                format!(
                    "`{}` calls `{}`, which is not this machine: the verdict depends on a remote \
                     service's state and the network, not on the task's work",
                    hint.source, http.host
                ),
                "start the service locally and check it at http://localhost:<port>/…, or test \
                 the behaviour with a [shell:] test that stubs the remote service",
            ));
        }
    }
}

/// True for loopback hosts: `localhost`, `*.localhost`, `127.0.0.0/8`,
/// `::1`, and the unspecified addresses `0.0.0.0` and `::` (which reach
/// this machine). `host` is lower-case, IPv6 brackets stripped.
pub(crate) fn is_local(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => is_local_v4(v4),
        Ok(IpAddr::V6(v6)) => is_local_v6(v6),
        Err(_) => false,
    }
}

fn is_local_v4(ip: Ipv4Addr) -> bool {
    ip.is_loopback() || ip.is_unspecified()
}

fn is_local_v6(ip: Ipv6Addr) -> bool {
    ip.is_loopback() || ip.is_unspecified() || ip.to_ipv4_mapped().is_some_and(is_local_v4)
}

#[cfg(test)]
mod tests {
    use super::is_local;

    #[test]
    fn loopback_hosts_are_local() {
        for host in [
            "localhost",
            "localhost.",
            "api.localhost",
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "0.0.0.0",
            "::",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_local(host), "{host}");
        }
        for host in [
            "example.com",
            "localhost.example.com",
            "mylocalhost",
            "10.0.0.1",
            "192.168.1.10",
            "128.0.0.1",
            "2001:db8::1",
            "::ffff:10.0.0.1",
            "",
        ] {
            assert!(!is_local(host), "{host}");
        }
    }
}
