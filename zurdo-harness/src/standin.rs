//! Being written: the scripted stand-in agent.

/// Runs the stand-in; returns its exit status.
pub fn main(_cli: &str, _args: &[String]) -> u8 {
    2
}
