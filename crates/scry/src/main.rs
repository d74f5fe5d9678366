//! The `scry` command line.

fn main() {
    println!("scry {}", env!("CARGO_PKG_VERSION"));
}
