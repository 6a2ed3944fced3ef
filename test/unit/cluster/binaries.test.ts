import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { binariesIn } from '../../cluster/binaries.js';

const dirs: string[] = [];

function binDirWith(names: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-ts-bin-'));
  dirs.push(dir);
  for (const name of names) {
    const file = join(dir, name);
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
  }
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('binariesIn', () => {
  it('finds all four control-plane binaries', () => {
    const dir = binDirWith(['kube-apiserver', 'etcd', 'kube-controller-manager', 'kube-scheduler']);
    expect(binariesIn(dir)).toEqual({
      binDir: dir,
      kubeApiserver: join(dir, 'kube-apiserver'),
      etcd: join(dir, 'etcd'),
      kubeControllerManager: join(dir, 'kube-controller-manager'),
      kubeScheduler: join(dir, 'kube-scheduler'),
    });
  });

  it('accepts a directory without the controller binaries (they are only needed with controllers)', () => {
    const dir = binDirWith(['kube-apiserver', 'etcd']);
    const found = binariesIn(dir);
    expect(found.kubeApiserver).toBe(join(dir, 'kube-apiserver'));
    expect(found.kubeControllerManager).toBeUndefined();
    expect(found.kubeScheduler).toBeUndefined();
  });

  it('names the missing required binary', () => {
    const dir = binDirWith(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    expect(() => binariesIn(dir)).toThrow(`control-plane binary ${join(dir, 'etcd')} is missing`);
  });
});
