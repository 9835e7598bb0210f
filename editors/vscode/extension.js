// The VS Code client of `mafiacheck lsp`: starts the language server over stdio for
// .mafia specs and .query files. Everything else (diagnostics, hover, definitions, outline,
// completion, formatting, quick fixes, the solver on save) is the server's.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("mafiacheck");
  const command = config.get("command") || "mafiacheck";
  const args = config.get("args") || ["lsp"];
  const serverOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "mafia" },
      { scheme: "file", language: "mafia-query" },
      { scheme: "untitled", language: "mafia" },
    ],
  };
  client = new LanguageClient("mafiacheck", "mafiacheck", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
