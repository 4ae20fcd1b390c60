//! The `relaxjit` command line.

fn main() {
    println!("relaxjit");
}
