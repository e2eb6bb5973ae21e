/**
 * Real Go binaries for the reachability tests, built offline (GOPROXY=off, GOFLAGS=-mod=mod): a program
 * `example.com/app` requiring `example.com/vulnlib v1.0.0`, replaced by a local directory, whose package
 * `example.com/vulnlib/parser` holds a method `(*Decoder).Decode` (the "vulnerable" symbol) and a function `Safe`.
 * One build calls Decode, the other only Safe, so the linker leaves Decode out of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineGoEnv } from './go-build.js';
import { requireTool } from './tools.js';

export interface VulnlibBinaries {
  /** Calls parser.(*Decoder).Decode. */
  withSymbol: Buffer;
  /** Calls parser.Safe only. */
  withoutSymbol: Buffer;
  /** `withSymbol` linked with -s -w (no ELF symbol table; the pclntab stays). */
  stripped: Buffer;
  /** `go tool nm` of withSymbol: the text symbols the ELF symbol table lists. */
  nmTextSymbols: string[];
  /** e.g. 1.19.8 */
  goVersion: string;
  cleanup(): void;
}

const PARSER = `package parser

import "strings"

// Decoder counts words; its method is the symbol the test advisory names.
type Decoder struct{ words map[string]int }

func (d *Decoder) Decode(input string) int {
	if d.words == nil {
		d.words = map[string]int{}
	}
	for _, w := range strings.Fields(input) {
		d.words[strings.ToLower(w)]++
	}
	return len(d.words)
}

func Safe(input string) string { return strings.TrimSpace(input) }
`;

const mainWith = `package main

import (
	"fmt"
	"os"

	"example.com/vulnlib/parser"
)

func main() {
	d := &parser.Decoder{}
	fmt.Println(d.Decode(os.Args[0]), parser.Safe(os.Args[0]))
}
`;

const mainWithout = `package main

import (
	"fmt"
	"os"

	"example.com/vulnlib/parser"
)

func main() { fmt.Println(parser.Safe(os.Args[0])) }
`;

function write(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

export function buildVulnlibBinaries(): VulnlibBinaries {
  requireTool('go');
  const dir = mkdtempSync(join(tmpdir(), 'vigil-go-sym-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    write(join(dir, 'vulnlib/go.mod'), 'module example.com/vulnlib\n\ngo 1.18\n');
    write(join(dir, 'vulnlib/parser/parser.go'), PARSER);
    const env = offlineGoEnv(dir);
    const build = (name: string, main: string, out: string, ...flags: string[]): Buffer => {
      const app = join(dir, name);
      write(join(app, 'go.mod'), 'module example.com/app\n\ngo 1.18\n\nrequire example.com/vulnlib v1.0.0\n\nreplace example.com/vulnlib => ../vulnlib\n');
      write(join(app, 'main.go'), main);
      execFileSync('go', ['build', '-trimpath', '-buildvcs=false', ...flags, '-o', join(dir, out), '.'], { cwd: app, env, stdio: 'pipe' });
      return readFileSync(join(dir, out));
    };
    const withSymbol = build('with', mainWith, 'with.bin');
    const withoutSymbol = build('without', mainWithout, 'without.bin');
    const stripped = build('with', mainWith, 'stripped.bin', '-ldflags=-s -w');
    const nm = execFileSync('go', ['tool', 'nm', join(dir, 'with.bin')], { env, stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 }).toString();
    const nmTextSymbols = nm
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length >= 3 && (f[1] === 'T' || f[1] === 't'))
      .map((f) => f.slice(2).join(' '));
    const goVersion = execFileSync('go', ['env', 'GOVERSION'], { env, stdio: 'pipe' }).toString().trim().replace(/^go/, '');
    return { withSymbol, withoutSymbol, stripped, nmTextSymbols, goVersion, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}
