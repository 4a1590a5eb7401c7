//! The greeter example: the code a PRD task asked an agent to write.

/// Greets `name`.
pub fn greet(name: &str) -> String {
    format!("Hello, {name}!")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greets_by_name() {
        assert_eq!(greet("zurdo"), "Hello, zurdo!");
    }
}
