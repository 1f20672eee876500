//! `tabiya book` commands.

use clap::Subcommand;

#[derive(Subcommand)]
pub enum BookCommand {
    /// Not yet available.
    Todo,
}

pub fn run(cmd: BookCommand) -> anyhow::Result<()> {
    match cmd {
        BookCommand::Todo => anyhow::bail!("not implemented yet"),
    }
}
