fn main() {
    std::process::exit(lblint::cli::main());
}
