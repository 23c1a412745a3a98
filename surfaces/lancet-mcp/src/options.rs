//! What a call runs with: the root's configuration, read again whenever its files changed, in
//! MCP's vocabulary, and the person's test command when a call asks for tests.

use crate::LancetServer;
use crate::call::Call;
use crate::result::refusal;
use lancet::ApplyOptions;
use lancet::{ErrorKind, Surface};
use rmcp::model::CallToolResult;
use std::sync::Arc;

impl LancetServer {
    /// The test command to run when a call asks for tests: only the person's (`--test-command`,
    /// else `[mcp] test_command` of the user's configuration or of repository settings they
    /// trusted, as it is now), never one the model supplies or writes (that would make the
    /// server a shell).
    fn tests_asked(
        &self,
        asked: Option<bool>,
        configured: Option<String>,
    ) -> Result<Option<String>, CallToolResult> {
        match (
            asked.unwrap_or(false),
            self.choices.test_command.clone().or(configured),
        ) {
            (false, _) => Ok(None),
            (true, Some(command)) => Ok(Some(command)),
            (true, None) => Err(refusal(
                ErrorKind::Usage,
                "this server has no test command: the user started it without --test-command and set no [mcp] test_command in their configuration (a repository's lancet.toml counts only once they trusted it with `lancet trust`), so test cannot be used".to_string(),
                "Nothing was written. Resend without test, or ask the user to set one (`lancet mcp --test-command '<their test command>'`).",
            )),
        }
    }

    /// The root's configuration (read again whenever one of its files changed, so an edited
    /// `lancet.toml` counts at once) in MCP's vocabulary, with the `call`'s cancellation and progress; a configuration
    /// lancet cannot use is the call's error.
    pub(crate) fn options(&self, call: &Call) -> Result<ApplyOptions, CallToolResult> {
        self.configured(call).map(|(opts, _)| opts)
    }

    /// [`Self::options`] with the tests a call asks for (`test: true`), from the same read of
    /// the configuration.
    pub(crate) fn options_testing(
        &self,
        asked: Option<bool>,
        call: &Call,
    ) -> Result<ApplyOptions, CallToolResult> {
        self.configured_testing(asked, call).map(|(opts, _)| opts)
    }

    /// [`Self::options_testing`] with the configuration it was read from, for a refactor that
    /// also takes what the person's settings say of its walk and its language servers.
    pub(crate) fn configured_testing(
        &self,
        asked: Option<bool>,
        call: &Call,
    ) -> Result<(ApplyOptions, lancet::Config), CallToolResult> {
        let (mut opts, config) = self.configured(call)?;
        opts.test = self.tests_asked(asked, config.mcp.test_command.clone())?;
        // The model's code runs in the tests: sandboxed unless the person said otherwise.
        opts.sandbox = self.choices.sandbox;
        Ok((opts, config))
    }

    fn configured(&self, call: &Call) -> Result<(ApplyOptions, lancet::Config), CallToolResult> {
        match ApplyOptions::configured_kept(self.root.clone(), &self.kept) {
            Ok((mut opts, config)) => {
                opts.gate.trees = Some(Arc::clone(&self.trees));
                // A model here is not Aider: a SEARCH block standing at several places is
                // refused, never applied at the first.
                opts.parse.unique = true;
                Ok((
                    ApplyOptions {
                        surface: Surface::Mcp,
                        actor: self.actor.clone(),
                        // Configuration is the person's: no batch of the model's changes it.
                        protect_settings: true,
                        cancel: call.cancel.clone(),
                        progress: call.progress.clone(),
                        ..opts
                    },
                    config,
                ))
            }
            Err(e) => Err(refusal(
                ErrorKind::Config,
                e.to_string(),
                "Nothing was written. Ask the user to fix the configuration (lancet's docs/configuration.md lists every key).",
            )),
        }
    }
}
