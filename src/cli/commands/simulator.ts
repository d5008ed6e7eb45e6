/** `pve-code-mcp simulator`: the embedded Proxmox VE simulator in the foreground. */
import { runSimulatorCli } from '../../simulator/cli.js';
import type { Command } from '../command.js';

export const simulatorCommand: Command = {
  name: 'simulator',
  usage: 'Usage: pve-code-mcp simulator [--preset demo] [--port 8006] [--schema FILE] ... (see --help)',
  run: (argv) => runSimulatorCli(argv),
};
