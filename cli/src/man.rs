//! `lidx man`: the manual page (roff), generated from the clap definitions
//! (clap_mangen), on stdout: `lidx man > lidx.1; man ./lidx.1`. The page
//! holds the top command and, after it, a section for every subcommand.

use super::{Cli, Status};
use clap::{Args, CommandFactory};

// Arguments of `lidx man` (a plain comment: see `Command` in main.rs, whose
// subcommands are deferred).
#[derive(Debug, Args)]
pub struct ManArgs {}

pub fn run(_: ManArgs) -> lidx::Result<Status> {
    let cmd = Cli::command();
    let mut page = Vec::new();
    let io = |e| lidx::Error::io("write", std::path::Path::new("<stdout>"), e);
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut page).map_err(io)?;
    man.render_name_section(&mut page).map_err(io)?;
    man.render_synopsis_section(&mut page).map_err(io)?;
    man.render_description_section(&mut page).map_err(io)?;
    man.render_subcommands_section(&mut page).map_err(io)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        page.extend_from_slice(format!(".SH \"LIDX {}\"\n", name.to_uppercase()).as_bytes());
        let sub_man = clap_mangen::Man::new(sub.clone().bin_name(format!("lidx {name}")));
        sub_man.render_synopsis_section(&mut page).map_err(io)?;
        sub_man.render_description_section(&mut page).map_err(io)?;
        sub_man.render_options_section(&mut page).map_err(io)?;
    }
    man.render_version_section(&mut page).map_err(io)?;
    let mut out = super::stdout();
    std::io::Write::write_all(&mut out, &page).map_err(io)?;
    super::flush(&mut out)?;
    Ok(0)
}
