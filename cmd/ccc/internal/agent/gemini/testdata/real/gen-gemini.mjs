// Records Gemini CLI chat logs with Gemini CLI's own code, for ccc's replay
// suite (TestReplayRealGemini). Not part of ccc: run by hand, never at run
// time.
//
//   mkdir /tmp/g && cd /tmp/g && npm install --ignore-scripts @google/gemini-cli-core@0.61.0
//   node gen-gemini.mjs /tmp/g OUT_DIR
//
// It drives the package's own ChatRecordingService (which writes
// ~/.gemini/tmp/<project>/chats/session-*.json before 0.39, .jsonl since)
// and its own WriteTodosTool (validation and output) through one session:
// three turns with write_todos calls, one call the tool refuses, and (0.39
// on) a rewind. It writes, into OUT_DIR:
//   - the chat log as Gemini CLI left it (chats/...), and for the
//     whole-object .json of older versions a copy as it stood at each event
//     (snap-NN.json: that file is rewritten, not appended to);
//   - events.json: the hook events Gemini CLI fires (AfterTool after a
//     write_todos that ran, AfterAgent at the end of a turn), each with its
//     input fields, the log as it stood (lines of the .jsonl, or the
//     snapshot), and `want`: the todo list as Gemini CLI's own loader
//     rebuilds it from the log at that point (loadConversationRecord since
//     0.39, JSON.parse before), its last successful write_todos.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, out] = process.argv.slice(2);
if (!root || !out) {
  console.error('usage: node gen-gemini.mjs NODE_PROJECT_DIR OUT_DIR');
  process.exit(2);
}
const core = path.join(root, 'node_modules/@google/gemini-cli-core');
const version = JSON.parse(fs.readFileSync(path.join(core, 'package.json'), 'utf8')).version;
const load = (p) => import(pathToFileURL(path.join(core, 'dist/src', p)).href);
const recording = await load('services/chatRecordingService.js');
const { WriteTodosTool } = await load('tools/write-todos.js');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const sessionId = '5b2f8c1e-9a4d-4e7b-8c3f-1d6e0a9b7c25';
const projectRoot = '/home/dev/calc';
const model = 'gemini-2.5-pro';
const toolRegistry = { getTool: (name) => (name === 'write_todos' ? tool : undefined) };
const config = {
  getSessionId: () => sessionId,
  getProjectRoot: () => projectRoot,
  storage: { getProjectTempDir: () => out },
  getToolRegistry: () => toolRegistry,
  getWorkspaceContext: () => ({ getDirectories: () => [projectRoot] }),
};
const tool = new WriteTodosTool({ subscribe() {}, unsubscribe() {}, publish() {} });
const ChatRecordingService = recording.ChatRecordingService;
// 0.39 on: the service takes an agent-loop context; before, the config.
const jsonl = typeof recording.loadConversationRecord === 'function';
const svc = jsonl
  ? new ChatRecordingService({ promptId: sessionId, config, toolRegistry })
  : new ChatRecordingService(config);
await svc.initialize(undefined, 'main');
const logPath = () => svc.getConversationFilePath();

// The list Gemini CLI's own loader rebuilds from the log as it stands.
async function loaderList() {
  const conv = jsonl
    ? await recording.loadConversationRecord(logPath())
    : JSON.parse(fs.readFileSync(logPath(), 'utf8'));
  let list = null;
  for (const m of conv?.messages ?? []) {
    for (const c of m.toolCalls ?? []) {
      if (c.name === 'write_todos' && c.status === 'success') list = c.args.todos;
    }
  }
  return list;
}

const events = [];
let snaps = 0;
// where the log stands now, for an event
function logNow() {
  if (jsonl) {
    return { lines: fs.readFileSync(logPath(), 'utf8').split('\n').filter(Boolean).length };
  }
  const snap = `snap-${String(++snaps).padStart(2, '0')}.json`;
  fs.copyFileSync(logPath(), path.join(out, snap));
  return { snapshot: snap };
}
const base = (event) => ({
  session_id: sessionId,
  transcript_path: path.relative(out, logPath()),
  cwd: projectRoot,
  hook_event_name: event,
  timestamp: new Date().toISOString(),
});

let calls = 0;
// writeTodos runs write_todos as Gemini CLI does (the tool's validation and
// output), fires AfterTool when it ran (the log not yet holding the call),
// then records the call.
async function writeTodos(todos) {
  const id = `write_todos-${Date.now()}-${++calls}`;
  const args = { todos };
  let status = 'success';
  let llmContent;
  let returnDisplay;
  let error;
  try {
    const result = await tool.build(args).execute({ abortSignal: new AbortController().signal });
    llmContent = result.llmContent;
    returnDisplay = result.returnDisplay;
  } catch (e) {
    status = 'error';
    error = String(e.message ?? e);
    llmContent = error;
    returnDisplay = error;
  }
  const at = status === 'success' ? logNow() : null; // a refused call fires no AfterTool
  const call = {
    id,
    name: 'write_todos',
    args,
    result: [{ functionResponse: { id, name: 'write_todos', response: { output: llmContent } } }],
    status,
    timestamp: new Date().toISOString(),
    resultDisplay: returnDisplay,
  };
  svc.recordToolCalls(model, [call]);
  if (status === 'success') {
    events.push({
      ...at,
      input: { ...base('AfterTool'), tool_name: 'write_todos', tool_input: args, tool_response: { llmContent, returnDisplay } },
      want: await loaderList(),
    });
  }
  return status;
}

async function endTurn(prompt, reply) {
  svc.recordMessage({ model, type: 'gemini', content: [{ text: reply }] });
  events.push({
    ...logNow(),
    input: { ...base('AfterAgent'), prompt, prompt_response: reply, stop_hook_active: false },
    want: await loaderList(),
  });
}

const t = (description, status) => ({ description, status });
let prompt = 'Build a calculator CLI: lexer, parser, evaluator, REPL.';
svc.recordMessage({ model: undefined, type: 'user', content: [{ text: prompt }] });
await writeTodos([t('Write the lexer', 'in_progress'), t('Write the parser', 'pending'),
  t('Write the evaluator', 'pending'), t('Write the REPL', 'pending')]);
svc.recordMessage({ model, type: 'gemini', content: [{ text: 'The lexer is written and tested.' }] });
await writeTodos([t('Write the lexer', 'completed'), t('Write the parser', 'in_progress'),
  t('Write the evaluator', 'pending'), t('Write the REPL', 'pending')]);
await endTurn(prompt, 'Lexer done; the parser is under way.');

prompt = 'Also add a README, and skip the REPL for now.';
svc.recordMessage({ model: undefined, type: 'user', content: [{ text: prompt }] });
const refused = await writeTodos([t('Write the lexer', 'completed'), t('Write the parser', 'in_progress'),
  t('Write the evaluator', 'in_progress'), t('Write the REPL', 'cancelled'), t('Write the README', 'pending')]);
if (refused !== 'error') throw new Error('write_todos accepted two tasks in progress');
await writeTodos([t('Write the lexer', 'completed'), t('Write the parser', 'completed'),
  t('Write the evaluator', 'in_progress'), t('Write the REPL', 'cancelled'), t('Write the README', 'pending')]);
await endTurn(prompt, 'Parser done; evaluating next. The REPL is cancelled.');

prompt = 'Actually, drop the README.';
svc.recordMessage({ model: undefined, type: 'user', content: [{ text: prompt }] });
const askID = svc.getConversation()?.messages.at(-1)?.id;
await writeTodos([t('Write the lexer', 'completed'), t('Write the parser', 'completed'),
  t('Write the evaluator', 'in_progress'), t('Write the REPL', 'cancelled')]);
await endTurn(prompt, 'README dropped.');
if (typeof askID === 'string' && typeof svc.rewindTo === 'function') {
  // The person rewinds to before that prompt, then goes on.
  svc.rewindTo(askID);
  prompt = 'Go on with the evaluator.';
  svc.recordMessage({ model: undefined, type: 'user', content: [{ text: prompt }] });
  await endTurn(prompt, 'The evaluator handles + - * / now.');
}

fs.writeFileSync(path.join(out, 'events.json'),
  JSON.stringify({ generator: `@google/gemini-cli-core@${version}`, log: path.relative(out, logPath()), events }, null, 1) + '\n');
console.log(`${version}: ${path.relative(out, logPath())}, ${events.length} events`);
