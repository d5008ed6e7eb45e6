/*
 * Trusted prelude of the run_script sandbox. It runs inside the isolate before the agent's code,
 * as one function expression called with four values from the worker:
 *
 *   send(id, callJson)        bridge call out (fire-and-forget; the answer comes via `resolve`)
 *   log(line)                 one formatted console line out
 *   done(ok, payload, dropped) the run's settlement: result JSON, or the normalised exception
 *   configJson                limits the prelude enforces before anything crosses the boundary
 *
 * and returns `resolve(id, ok, json)`, which the worker calls (with a timeout) to answer a call.
 * The three outgoing functions are plain functions (isolated-vm Callbacks); no isolated-vm object
 * and no host object ever reaches the agent. Everything the prelude relies on is captured here,
 * before agent code can replace it; the only globals added are `pve`, `console` and the one-shot
 * `__pveStart__`. Plain JavaScript on purpose: it is read as text and never runs in Node.
 */
(function prelude(send, log, done, configJson) {
  'use strict';
  const g = globalThis;
  const JSONparse = JSON.parse;
  const JSONstringify = JSON.stringify;
  const ObjectFreeze = Object.freeze;
  const ObjectCreate = Object.create;
  const ObjectKeys = Object.keys;
  const ObjectDefineProperty = Object.defineProperty;
  const ArrayIsArray = Array.isArray;
  const ReflectApply = Reflect.apply;
  const StringCtor = String;
  const NumberIsFinite = Number.isFinite;
  const ErrorCtor = Error;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const PromiseResolve = Promise.resolve;
  const stringSlice = String.prototype.slice;
  const stringIndexOf = String.prototype.indexOf;
  const WeakMapCtor = WeakMap;
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  const WeakSetCtor = WeakSet;
  const weakSetHas = WeakSet.prototype.has;
  const weakSetAdd = WeakSet.prototype.add;

  const config = JSONparse(configJson);

  // Not counted by memoryLimit (WebAssembly.Memory) or able to block the isolate (Atomics.wait).
  delete g.WebAssembly;
  delete g.SharedArrayBuffer;
  delete g.Atomics;

  const slice = (s, a, b) => ReflectApply(stringSlice, s, [a, b]);

  /** Errors the prelude made: value = bridge call id (number) or local kind ('invalid' | 'budget'). */
  const origins = new WeakMapCtor();

  const ERROR_NAMES = ObjectFreeze({
    __proto__: null,
    invalid: 'PveInvalidCallError',
    denied: 'PveDeniedError',
    budget: 'PveBudgetError',
    approval: 'PveApprovalError',
    identity: 'PveIdentityError',
    api: 'PveApiError',
    task: 'PveTaskError',
    timeout: 'PveTimeoutError',
    cancelled: 'PveCancelledError',
    unknown: 'PveOutcomeUnknownError',
    audit: 'PveAuditError',
    halted: 'PveHaltedError',
    internal: 'PveInternalError',
  });

  function makeError(kind, message, site, origin, details) {
    const name = ERROR_NAMES[kind] || 'PveError';
    const error = new ErrorCtor(message);
    ObjectDefineProperty(error, 'name', { value: name, writable: true, configurable: true, enumerable: false });
    ObjectDefineProperty(error, 'kind', { value: kind, writable: true, configurable: true, enumerable: true });
    if (details) {
      for (const key of ['outcome', 'method', 'path', 'status', 'errors', 'cluster', 'risk', 'upid', 'node', 'exitstatus', 'log']) {
        if (details[key] !== undefined) {
          ObjectDefineProperty(error, key, { value: details[key], writable: true, configurable: true, enumerable: true });
        }
      }
    }
    // Point the stack at the agent's `pve.*` call, not at the reply that settled it. Formatting
    // a stack is costly, so it happens only when someone reads it.
    let stack;
    ObjectDefineProperty(error, 'stack', {
      get() {
        if (stack === undefined) {
          let frames = '';
          const siteStack = site ? site.stack : undefined;
          if (typeof siteStack === 'string') {
            // Skip the header and the prelude's own frames: the first frame shown is the agent's.
            let at = ReflectApply(stringIndexOf, siteStack, ['\n']);
            while (at >= 0) {
              const next = ReflectApply(stringIndexOf, siteStack, ['\n', at + 1]);
              const line = slice(siteStack, at, next < 0 ? siteStack.length : next);
              if (ReflectApply(stringIndexOf, line, ['pve:prelude']) < 0) break;
              at = next;
            }
            if (at >= 0) frames = slice(siteStack, at);
          }
          stack = name + ': ' + message + frames;
        }
        return stack;
      },
      set(value) {
        stack = value;
      },
      configurable: true,
      enumerable: false,
    });
    ReflectApply(weakMapSet, origins, [error, origin]);
    return error;
  }

  /** Refused in the sandbox itself: the call never reached the server. */
  const NOT_SENT = ObjectFreeze({ __proto__: null, outcome: 'not-sent' });

  const settledPromise = PromiseCtor.resolve();

  /**
   * A promise rejected one microtask later: by then the caller has attached its handlers, so
   * isolated-vm's unhandled-rejection tracking (slow, ~0.1 ms each) is not triggered for floods.
   */
  function rejected(kind, message) {
    return rejectWith(makeError(kind, message, new ErrorCtor(), kind, NOT_SENT));
  }

  function rejectWith(error) {
    let fail;
    const promise = new PromiseCtor((_resolve, reject) => {
      fail = reject;
    });
    ReflectApply(promiseThen, settledPromise, [() => fail(error)]);
    return promise;
  }

  // ---- bridge -------------------------------------------------------------------------------

  const pending = ObjectCreate(null);
  let pendingCount = 0;
  let callCount = 0;
  let tooManyCalls;
  let tooManyPending;

  function dispatch(callJson) {
    // An oversized call travels as a small stand-in, so the host refuses, counts and audits it
    // like every other attempt without receiving its bytes.
    if (callJson.length > config.maxCallBytes) callJson = '{"kind":"oversized","bytes":' + callJson.length + '}';
    // Floods are refused with one shared error each, so refusing costs almost nothing.
    if (callCount >= config.maxCalls) {
      tooManyCalls = tooManyCalls || makeError('budget', 'this run already made ' + config.maxCalls + ' bridge calls, the most one run may make', new ErrorCtor(), 'budget');
      return rejectWith(tooManyCalls);
    }
    if (pendingCount >= config.maxPendingCalls) {
      tooManyPending = tooManyPending || makeError('budget', config.maxPendingCalls + ' bridge calls are already in flight; await some before starting more', new ErrorCtor(), 'budget');
      return rejectWith(tooManyPending);
    }
    callCount++;
    pendingCount++;
    const id = callCount;
    // Null prototype: settling must not consult anything the agent can redefine.
    const slot = { __proto__: null, ok: false, payload: undefined, settle: undefined };
    const reply = new PromiseCtor((resolve) => {
      slot.settle = resolve;
    });
    pending[id] = slot;
    send(id, callJson);
    return settle(reply, slot, id);
  }

  /**
   * Async on purpose: an error created after the `await` carries V8's async stack, i.e. the line
   * where the agent awaits this call, so no stack has to be captured for the calls that succeed.
   */
  async function settle(reply, slot, id) {
    await reply;
    if (slot.ok) return slot.payload;
    const payload = slot.payload;
    const kind = payload !== null && typeof payload === 'object' && typeof payload.kind === 'string' ? payload.kind : 'internal';
    const message = payload !== null && typeof payload === 'object' && typeof payload.message === 'string' ? payload.message : 'bridge call failed';
    throw makeError(kind, message, new ErrorCtor(), id, payload);
  }

  function describeType(v) {
    if (v === null) return 'null';
    if (ArrayIsArray(v)) return 'an array';
    return typeof v;
  }

  function request(cluster, method, path, params) {
    const name = 'pve.' + (method === 'DELETE' ? 'delete' : method === 'GET' ? 'get' : method === 'POST' ? 'post' : 'put');
    if (typeof path !== 'string') return rejected('invalid', name + '(path, params): path must be a string, got ' + describeType(path));
    let paramsJson = '{}';
    if (params !== undefined && params !== null) {
      if (typeof params !== 'object' || ArrayIsArray(params)) {
        return rejected('invalid', name + '(path, params): params must be an object, got ' + describeType(params));
      }
      try {
        paramsJson = JSONstringify(params);
      } catch (e) {
        return rejected('invalid', name + '(path, params): params are not JSON-serialisable: ' + safeMessage(e));
      }
      if (typeof paramsJson !== 'string' || paramsJson[0] !== '{') {
        return rejected('invalid', name + '(path, params): params must serialise to a JSON object');
      }
    }
    let json = '{"kind":"request","method":' + JSONstringify(method) + ',"path":' + JSONstringify(path) + ',"params":' + paramsJson;
    if (cluster !== undefined) json += ',"cluster":' + JSONstringify(cluster);
    return dispatch(json + '}');
  }

  /** The `timeoutMs` of a wait's options as call JSON (`''` when absent), or a problem to refuse with. */
  function waitOptions(name, options) {
    if (options === undefined || options === null) return { json: '' };
    if (typeof options !== 'object') return { problem: name + ': options must be an object' };
    const timeoutMs = options.timeoutMs;
    if (timeoutMs === undefined) return { json: '' };
    if (typeof timeoutMs !== 'number' || !NumberIsFinite(timeoutMs) || timeoutMs < 1) {
      return { problem: name + ': timeoutMs is a number of milliseconds, at least 1 (leave it out for the default)' };
    }
    return { json: ',"timeoutMs":' + JSONstringify(timeoutMs - (timeoutMs % 1)) };
  }

  function waitTask(cluster, upid, options) {
    if (typeof upid !== 'string') return rejected('invalid', 'pve.waitTask(upid, options): upid must be a string, got ' + describeType(upid));
    const opts = waitOptions('pve.waitTask(upid, options)', options);
    if (opts.problem !== undefined) return rejected('invalid', opts.problem);
    let json = '{"kind":"waitTask","upid":' + JSONstringify(upid) + opts.json;
    if (cluster !== undefined) json += ',"cluster":' + JSONstringify(cluster);
    return dispatch(json + '}');
  }

  // ---- batches of tasks ---------------------------------------------------------------------

  /**
   * Waits of one `waitTasks` in flight at once. A wait mostly sleeps between status polls, and the
   * client holds a few connections per cluster, so a handful in parallel finish a batch in about the
   * time of its slowest task while leaving room for the script's other calls.
   */
  const WAIT_WINDOW = 8;

  const OUTCOMES = ObjectFreeze({ __proto__: null, done: true, failed: true, 'not-sent': true, unknown: true });

  function nodeOfUpid(upid) {
    if (slice(upid, 0, 5) !== 'UPID:') return undefined;
    const end = ReflectApply(stringIndexOf, upid, [':', 5]);
    return end > 5 ? slice(upid, 5, end) : undefined;
  }

  /** A task that ended OK or with warnings (or was only planned, in a dry-run). */
  function taskDone(r) {
    const planned = r !== null && typeof r === 'object' && r.planned === true;
    const out = { upid: r.upid, node: r.node, outcome: planned ? 'not-sent' : 'done', ok: r.ok === true, status: r.status, exitstatus: r.exitstatus, log: r.log };
    if (planned) out.planned = true;
    if (typeof r.note === 'string') out.note = r.note;
    return out;
  }

  /**
   * What an error says of a batch item. With `upid` the task was started and waiting for it failed:
   * the task's outcome is `failed` only when its own exit status says so, else `unknown` (still
   * running, status unreadable, or the wait itself refused: denied, budget…), never `not-sent`.
   * Without it the write meant to start the task failed, and its outcome is the write's.
   */
  function taskError(e, upid) {
    const sdk = e !== null && typeof e === 'object' && ReflectApply(weakMapGet, origins, [e]) !== undefined;
    const kind = sdk && typeof e.kind === 'string' ? e.kind : undefined;
    const id = upid !== undefined ? upid : sdk && typeof e.upid === 'string' ? e.upid : undefined;
    let outcome = 'unknown';
    if (upid !== undefined) outcome = kind === 'task' ? 'failed' : 'unknown';
    else if (sdk && typeof e.outcome === 'string' && OUTCOMES[e.outcome] === true) outcome = e.outcome;
    const out = {};
    if (id !== undefined) {
      out.upid = id;
      const node = sdk && typeof e.node === 'string' ? e.node : nodeOfUpid(id);
      if (node !== undefined) out.node = node;
    }
    out.outcome = outcome;
    out.ok = false;
    if (sdk && typeof e.exitstatus === 'string') out.exitstatus = e.exitstatus;
    out.log = sdk && ArrayIsArray(e.log) ? e.log : [];
    if (kind !== undefined) out.kind = kind;
    out.message = sdk ? safeMessage(e) : 'the script\'s own error, not an SDK call\'s: ' + safeMessage(e);
    return out;
  }

  /** One batch item, settled: never rejects. `first` is `{ok, value}` or a promise of it. */
  async function batchItem(cluster, first, options, index) {
    let upid;
    try {
      const slot = await first;
      if (!slot.ok) return taskError(slot.value, undefined);
      const value = slot.value;
      // A write PVE completes without a task answers null: there is nothing to wait for.
      if (value === null || value === undefined) return { outcome: 'done', ok: true, log: [] };
      if (typeof value !== 'string') {
        return { outcome: 'unknown', ok: false, log: [], kind: 'invalid', message: 'pve.waitTasks: item ' + index + ' is ' + describeType(value) + ', not a task ID (UPID) or the promise of a write' };
      }
      upid = value;
      return taskDone(await waitTask(cluster, value, options));
    } catch (e) {
      return taskError(e, upid);
    }
  }

  function isThenable(v) {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return false;
    try {
      return typeof v.then === 'function';
    } catch (_) {
      return false;
    }
  }

  /**
   * Waits for every task of a batch and reports each, in the order given; never rejects for a
   * task's or a write's failure. Items are UPIDs or the promises writes returned (their failures
   * are reported too); handlers are attached to every promise at once, so none goes unobserved
   * while earlier waits run.
   */
  function waitTasks(cluster, items, options) {
    const name = 'pve.waitTasks(upids, options)';
    if (!ArrayIsArray(items)) return rejected('invalid', name + ': upids must be an array of task IDs or of the promises writes returned, got ' + describeType(items));
    const opts = waitOptions(name, options);
    if (opts.problem !== undefined) return rejected('invalid', opts.problem);
    const count = items.length;
    const firsts = [];
    for (let i = 0; i < count; i++) {
      const item = items[i];
      if (!isThenable(item)) {
        firsts[i] = { __proto__: null, ok: true, value: item };
        continue;
      }
      firsts[i] = ReflectApply(promiseThen, ReflectApply(PromiseResolve, PromiseCtor, [item]), [
        (value) => ({ __proto__: null, ok: true, value }),
        (value) => ({ __proto__: null, ok: false, value }),
      ]);
    }
    const results = [];
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const i = next++;
        results[i] = await batchItem(cluster, firsts[i], options, i);
      }
    };
    const width = count < WAIT_WINDOW ? count : WAIT_WINDOW;
    const lanes = [];
    for (let i = 0; i < width && i < config.maxPendingCalls; i++) lanes[i] = lane();
    return (async () => {
      for (let i = 0; i < lanes.length; i++) await lanes[i];
      return results;
    })();
  }

  /** Called by the worker for every reply; must never throw back into the host. */
  function resolve(id, ok, json) {
    try {
      const slot = pending[id];
      if (slot === undefined) return;
      delete pending[id];
      pendingCount--;
      try {
        slot.payload = JSONparse(json);
        slot.ok = ok === true;
      } catch (e) {
        slot.payload = { kind: 'internal', message: 'the bridge reply was not valid JSON' };
      }
      slot.settle(undefined);
    } catch (e) {
      // Swallowed: the host must never receive an exception from the sandbox.
    }
  }

  /** `{node, vmid, type, name, status}` of every guest, from one `GET /cluster/resources?type=vm`. */
  function guests(cluster) {
    return ReflectApply(promiseThen, request(cluster, 'GET', '/cluster/resources', { type: 'vm' }), [
      (list) => {
        const out = [];
        if (!ArrayIsArray(list)) return out;
        for (let i = 0; i < list.length; i++) {
          const r = list[i];
          if (r === null || typeof r !== 'object' || (r.type !== 'qemu' && r.type !== 'lxc')) continue;
          out[out.length] = { node: r.node, vmid: r.vmid, type: r.type, name: r.name, status: r.status, template: r.template === 1 || r.template === true };
        }
        return out;
      },
    ]);
  }

  /** The guest with this VMID or name (undefined when none; the first by VMID when names repeat). */
  function findGuest(cluster, nameOrVmid) {
    if (typeof nameOrVmid !== 'string' && typeof nameOrVmid !== 'number') {
      return rejected('invalid', 'pve.findGuest(nameOrVmid): give a VMID or a guest name, got ' + describeType(nameOrVmid));
    }
    return ReflectApply(promiseThen, guests(cluster), [
      (all) => {
        const wanted = StringCtor(nameOrVmid);
        let byName;
        for (let i = 0; i < all.length; i++) {
          const guest = all[i];
          if (StringCtor(guest.vmid) === wanted) return guest;
          if (byName === undefined && guest.name === wanted) byName = guest;
        }
        return byName;
      },
    ]);
  }

  /**
   * `pve.undo(runId)`: the host answers with the reversing steps of that run (from the audit and
   * the cluster as it is now); each is made here, in order, as an ordinary write, so policy, the
   * dry-run plan and approval apply to it as to any other. Tasks are waited for before the next.
   */
  async function undo(cluster, runId) {
    if (typeof runId !== 'string') return rejected('invalid', 'pve.undo(runId): runId must be a string (the changes.runId of a run_script answer), got ' + describeType(runId));
    let json = '{"kind":"undo","runId":' + JSONstringify(runId);
    if (cluster !== undefined) json += ',"cluster":' + JSONstringify(cluster);
    const plan = await dispatch(json + '}');
    const undone = [];
    for (let i = 0; i < plan.steps.length; i++) {
      const step = plan.steps[i];
      const upid = await request(step.cluster, step.method, step.path, step.params);
      if (typeof upid === 'string' && slice(upid, 0, 5) === 'UPID:') await waitTask(step.cluster, upid);
      undone[undone.length] = step.about;
    }
    return { runId: runId, undone: undone, cannot: plan.cannot };
  }

  function makeClient(cluster) {
    const client = {
      guests: () => guests(cluster),
      findGuest: (nameOrVmid) => findGuest(cluster, nameOrVmid),
      get: (path, params) => request(cluster, 'GET', path, params),
      post: (path, params) => request(cluster, 'POST', path, params),
      put: (path, params) => request(cluster, 'PUT', path, params),
      delete: (path, params) => request(cluster, 'DELETE', path, params),
      waitTask: (upid, options) => waitTask(cluster, upid, options),
      waitTasks: (upids, options) => waitTasks(cluster, upids, options),
      undo: (runId) => undo(cluster, runId),
      cluster: (name) => {
        if (typeof name !== 'string' || name.length === 0 || name.length > 63) {
          throw makeError('invalid', 'pve.cluster(name): name must be a non-empty string of at most 63 characters', new ErrorCtor(), 'invalid');
        }
        return makeClient(name);
      },
    };
    return ObjectFreeze(client);
  }

  // ---- console ------------------------------------------------------------------------------

  let logBudget = config.maxLogBytes;
  let logsDropped = 0;

  function safeMessage(e) {
    try {
      if (e !== null && typeof e === 'object') {
        const m = e.message;
        return typeof m === 'string' ? m : StringCtor(m);
      }
      return StringCtor(e);
    } catch (_) {
      return 'unprintable error';
    }
  }

  function formatValue(v) {
    const t = typeof v;
    if (t === 'string') return v;
    if (t === 'function') return '[Function' + (typeof v.name === 'string' && v.name ? ' ' + v.name : '') + ']';
    if (t !== 'object' || v === null) return StringCtor(v);
    if (v instanceof ErrorCtor) {
      const stack = v.stack;
      return typeof stack === 'string' ? stack : StringCtor(v.name) + ': ' + safeMessage(v);
    }
    const seen = new WeakSetCtor();
    const json = JSONstringify(v, (_key, value) => {
      if (typeof value === 'bigint') return StringCtor(value) + 'n';
      if (value !== null && typeof value === 'object') {
        if (ReflectApply(weakSetHas, seen, [value])) return '[Circular]';
        ReflectApply(weakSetAdd, seen, [value]);
      }
      return value;
    });
    return typeof json === 'string' ? json : StringCtor(v);
  }

  function emit(prefix, args) {
    if (logBudget <= 0) {
      logsDropped++;
      return;
    }
    const max = config.maxLogLineBytes < logBudget ? config.maxLogLineBytes : logBudget;
    let line = prefix;
    for (let i = 0; i < args.length; i++) {
      let part;
      try {
        part = formatValue(args[i]);
      } catch (_) {
        part = '[unprintable]';
      }
      line += (i > 0 ? ' ' : '') + part;
      if (line.length > max) break;
    }
    if (line.length > max) line = slice(line, 0, max) + '…[cut]';
    logBudget -= line.length;
    log(line);
  }

  const consoleObject = ObjectFreeze({
    log: (...args) => emit('', args),
    info: (...args) => emit('', args),
    debug: (...args) => emit('[debug] ', args),
    warn: (...args) => emit('[warn] ', args),
    error: (...args) => emit('[error] ', args),
  });

  // ---- settlement ---------------------------------------------------------------------------

  let finished = false;

  function cap(s, max) {
    return s.length > max ? slice(s, 0, max) + '…[cut]' : s;
  }

  function readString(read, fallback) {
    try {
      const v = read();
      if (v === undefined) return fallback;
      return typeof v === 'string' ? v : StringCtor(v);
    } catch (_) {
      return fallback;
    }
  }

  function describeThrown(e) {
    const described = { name: 'Error', message: '' };
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      const origin = ReflectApply(weakMapGet, origins, [e]);
      described.name = cap(readString(() => e.name, 'Error'), 200);
      described.message = cap(readString(() => e.message, ''), 20000);
      const stack = readString(() => e.stack, undefined);
      if (stack !== undefined) described.stack = cap(stack, 100000);
      if (typeof origin === 'number') described.bridgeCallId = origin;
      else if (origin === 'invalid' || origin === 'budget') described.preludeKind = origin;
      if (!(e instanceof ErrorCtor) && stack === undefined) {
        described.message = 'the script threw a non-Error value: ' + cap(readString(() => formatValue(e), '[object]'), 2000);
      }
    } else {
      described.name = 'ThrownValue';
      described.message = 'the script threw a non-Error value: ' + cap(readString(() => StringCtor(e), typeof e), 2000);
    }
    return described;
  }

  function finish(ok, payload) {
    if (finished) return;
    finished = true;
    done(ok, payload, logsDropped);
  }

  function fail(e) {
    let payload;
    try {
      payload = JSONstringify(describeThrown(e));
    } catch (_) {
      payload = '{"name":"Error","message":"the script failed with an exception that could not be described"}';
    }
    finish(false, payload);
  }

  function succeed(value) {
    let json;
    try {
      json = JSONstringify(value);
    } catch (e) {
      finish(false, JSONstringify({ name: 'PveResultError', message: 'the return value is not JSON-serialisable: ' + cap(safeMessage(e), 2000), resultProblem: true }));
      return;
    }
    if (json === undefined) {
      finish(true, '');
      return;
    }
    if (json.length > config.maxResultBytes) {
      const message = 'the return value is ' + json.length + ' bytes as JSON; the limit is ' + config.maxResultBytes + ': return less (filter, pick fields, aggregate)';
      finish(false, JSONstringify({ name: 'PveResultError', message, resultProblem: true }));
      return;
    }
    finish(true, json);
  }

  /** The run's argument values, read by the script as the global `args` (frozen: a script cannot change what it was given). */
  function defineArgs(values) {
    const own = ObjectCreate(null);
    if (values !== undefined && values !== null && typeof values === 'object') {
      const names = ObjectKeys(values);
      for (let i = 0; i < names.length; i++) {
        const v = values[names[i]];
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') own[names[i]] = v;
      }
    }
    ObjectDefineProperty(g, 'args', { value: ObjectFreeze(own), writable: false, configurable: false, enumerable: false });
  }

  function start(main, values) {
    delete g.__pveStart__;
    defineArgs(values);
    let result;
    try {
      result = main();
    } catch (e) {
      fail(e);
      return;
    }
    ReflectApply(promiseThen, result, [succeed, fail]);
  }

  // ---- globals ------------------------------------------------------------------------------

  ObjectDefineProperty(g, 'pve', { value: makeClient(undefined), writable: false, configurable: false, enumerable: false });
  ObjectDefineProperty(g, 'console', { value: consoleObject, writable: false, configurable: false, enumerable: false });
  ObjectDefineProperty(g, '__pveStart__', { value: start, writable: false, configurable: true, enumerable: false });

  return resolve;
})
