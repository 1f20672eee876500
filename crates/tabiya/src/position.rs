//! `tabiya position` commands.

use clap::Subcommand;

#[derive(Subcommand)]
pub enum PositionCommand {
    /// Not yet available.
    Todo,
}

pub fn run(cmd: PositionCommand) -> anyhow::Result<()> {
    match cmd {
        PositionCommand::Todo => anyhow::bail!("not implemented yet"),
    }
}
