//! `lidx completions SHELL`: the shell completion script, generated from
//! the clap definitions (clap_complete), on stdout.

use super::{Cli, Status};
use clap::{Args, CommandFactory};
use clap_complete::Shell;

// Arguments of `lidx completions` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    ///
    /// bash: `lidx completions bash > ~/.local/share/bash-completion/completions/lidx`;
    /// zsh: `lidx completions zsh > ~/.zfunc/_lidx` (with `fpath+=~/.zfunc`);
    /// fish: `lidx completions fish > ~/.config/fish/completions/lidx.fish`.
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(a: CompletionsArgs) -> lidx::Result<Status> {
    let mut cmd = Cli::command();
    let mut out = super::stdout();
    clap_complete::generate(a.shell, &mut cmd, "lidx", &mut out);
    super::flush(&mut out)?;
    Ok(0)
}
