//! The AWS CLI's shared configuration, for `s3://` URLs: a profile's static
//! keys, region and endpoint from `~/.aws/credentials` and `~/.aws/config`,
//! as `aws` reads them, under what the environment says first.
//!
//! What it reads: `AWS_PROFILE` (or `AWS_DEFAULT_PROFILE`, else
//! `default`); the credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else
//! `~/.aws/credentials`), section `[NAME]`, and the config file
//! (`AWS_CONFIG_FILE`, else `~/.aws/config`), section `[profile NAME]`
//! (`[default]` for the default profile); the keys
//! `aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`,
//! `region` and `endpoint_url`. The credentials file wins over the config
//! file. What it does not do: roles (`role_arn`), SSO and
//! `credential_process` profiles, which say so in a one-line error.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What a profile gives.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name.
    pub name: String,
    /// Static keys.
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub session_token: Option<String>,
    /// The region and the endpoint URL.
    pub region: Option<String>,
    pub endpoint_url: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `path`'s INI sections: section name to its keys (lower case) and
/// values, as the AWS CLI writes them (`key = value`, `#` and `;`
/// comments); nested settings (indented lines) are skipped.
fn sections(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for raw in text.lines() {
        if raw.starts_with([' ', '\t']) {
            continue;
        }
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.trim().to_string();
            out.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        if let (Some(sec), Some((k, v))) = (&current, line.split_once('=')) {
            out.entry(sec.clone())
                .or_default()
                .insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    out
}

fn read(path: &PathBuf) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn home_file(var: &str, name: &str) -> Option<PathBuf> {
    env(var)
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".aws").join(name)))
}

/// The profile the environment names (or `default`), from the shared
/// files. `Ok(None)` when neither file has it and it was not named
/// explicitly; an error when `AWS_PROFILE` names one that does not exist
/// or one that only a role, SSO or a process can give keys for.
pub fn profile() -> Result<Option<Profile>> {
    let named = env("AWS_PROFILE").or_else(|| env("AWS_DEFAULT_PROFILE"));
    let name = named.clone().unwrap_or_else(|| "default".into());
    let creds_path = home_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
    let config_path = home_file("AWS_CONFIG_FILE", "config");
    let creds = creds_path.as_ref().and_then(read).map(|t| sections(&t));
    let config = config_path.as_ref().and_then(read).map(|t| sections(&t));
    let config_section = if name == "default" {
        "default".to_string()
    } else {
        format!("profile {name}")
    };
    let from_creds = creds.as_ref().and_then(|c| c.get(&name));
    let from_config = config.as_ref().and_then(|c| {
        c.get(&config_section).or_else(|| {
            (name == "default")
                .then(|| c.get("profile default"))
                .flatten()
        })
    });
    if from_creds.is_none() && from_config.is_none() {
        return match named {
            Some(n) => Err(Error::InvalidArgument(format!(
                "AWS_PROFILE={n}: no profile [{n}] in {} nor [{config_section}] in {}",
                shown(&creds_path, "~/.aws/credentials"),
                shown(&config_path, "~/.aws/config")
            ))),
            None => Ok(None),
        };
    }
    let get = |k: &str| {
        from_creds
            .and_then(|s| s.get(k))
            .or_else(|| from_config.and_then(|s| s.get(k)))
            .filter(|v| !v.is_empty())
            .cloned()
    };
    let p = Profile {
        name: name.clone(),
        access_key_id: get("aws_access_key_id"),
        secret_access_key: get("aws_secret_access_key"),
        session_token: get("aws_session_token"),
        region: get("region"),
        endpoint_url: get("endpoint_url"),
    };
    if p.access_key_id.is_none() {
        for k in [
            "role_arn",
            "sso_session",
            "sso_start_url",
            "credential_process",
        ] {
            if get(k).is_some() {
                return Err(Error::InvalidArgument(format!(
                    "AWS profile {name} gets its keys by {k}, which lidx does not do: export \
                     them first (`eval \"$(aws configure export-credentials --profile {name} \
                     --format env)\"`)"
                )));
            }
        }
    }
    Ok(Some(p))
}

fn shown(p: &Option<PathBuf>, default: &str) -> String {
    p.as_ref()
        .map_or(default.to_string(), |p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ini_as_the_aws_cli_writes_it() {
        let s = sections(
            "[default]\naws_access_key_id = AKIA\n# comment\nAWS_Secret_Access_Key=s3cr3t\n\
             [profile dev]\nregion = eu-west-3\ns3 =\n  addressing_style = path\n\
             endpoint_url = http://127.0.0.1:9000\n",
        );
        assert_eq!(s["default"]["aws_access_key_id"], "AKIA");
        assert_eq!(s["default"]["aws_secret_access_key"], "s3cr3t");
        assert_eq!(s["profile dev"]["region"], "eu-west-3");
        assert_eq!(s["profile dev"]["endpoint_url"], "http://127.0.0.1:9000");
        assert!(!s["profile dev"].contains_key("addressing_style"));
    }
}
