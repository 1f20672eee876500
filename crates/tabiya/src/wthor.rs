//! `tabiya wthor` commands.

use clap::Subcommand;

#[derive(Subcommand)]
pub enum WthorCommand {
    /// Not yet available.
    Todo,
}

pub fn run(cmd: WthorCommand) -> anyhow::Result<()> {
    match cmd {
        WthorCommand::Todo => anyhow::bail!("not implemented yet"),
    }
}
