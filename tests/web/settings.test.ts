// The settings table: one declaration drives parsing, validation and the URL hash.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, PLAYGROUND_SCHEMA } from '../../dist/node.js';
import {
  DEFAULT_STATE,
  SETTINGS,
  crossCheck,
  modelConfig,
  parseSetting,
  settingByName,
  shownValue,
  splitLines,
  stateFromHash,
  stateToHash,
} from '../../web/src/settings/settings.js';
import { TRAIN_SETTINGS, trainSettingByName, trainStateFromHash } from '../../web/src/settings/train-settings.js';
import { ZERO_MEANS, zeroDefaultText } from '../../web/src/model/zero-defaults.js';

describe('settings', () => {
  it('declares every setting once, with a default that parses', () => {
    const names = SETTINGS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SETTINGS) {
      const raw = s.type === 'bool' ? (s.default ? '1' : '0') : String(s.default);
      expect(parseSetting(s, raw)).toEqual({ value: s.default });
    }
  });

  it('takes every model setting, its default, range and help from the engine', () => {
    for (const info of PLAYGROUND_SCHEMA.settings) {
      const s = settingByName(info.name)!;
      expect(s, info.name).toBeDefined();
      expect(s.group).toBe('model');
      expect(s.default).toBe(info.default);
      expect(s.help).toBe(info.help);
      if (s.type === 'int') expect([s.min, s.max]).toEqual([info.min, info.max]);
      if (s.type === 'choice') expect(s.choices).toEqual(info.choices);
    }
    expect(SETTINGS.filter((s) => s.group === 'model').length).toBe(PLAYGROUND_SCHEMA.settings.length);
  });

  it('round-trips a state through the URL hash, writing only what differs from the defaults', () => {
    expect(stateToHash(DEFAULT_STATE)).toBe('');
    const state = {
      ...DEFAULT_STATE,
      text: 'a <b> & c\nsecond line',
      mode: 'cross' as const,
      heads: 8,
      scale: false,
      view: 'masks' as const,
    };
    const hash = stateToHash(state);
    expect(hash).toMatch(/^#/);
    expect(hash).not.toContain('dModel');
    expect(stateFromHash(hash)).toEqual({ state, problems: [], rejected: {} });
  });

  it('writes relative to the given defaults, and a setting typed but not parsed as typed', () => {
    const defaults = { ...DEFAULT_STATE, preset: 'positional' as const };
    expect(stateToHash(defaults, defaults)).toBe('');
    expect(stateToHash(DEFAULT_STATE, defaults)).toBe('#preset=random');
    expect(stateFromHash('#preset=random', defaults).state).toEqual(DEFAULT_STATE);
    expect(stateFromHash('', defaults).state).toEqual(defaults);
    expect(stateToHash({ ...DEFAULT_STATE, heads: 6 }, DEFAULT_STATE, { heads: '65' })).toBe('#heads=65');
  });

  it('keeps the chosen trained model in the hash, first, so a link reopens it', () => {
    expect(DEFAULT_STATE.model).toBe(''); // the untrained playground model
    const state = { ...DEFAULT_STATE, model: 'reverse', text: '3 1 | 1 3' };
    expect(stateToHash(state)).toBe('#model=reverse&text=3+1+%7C+1+3');
    expect(stateFromHash('#model=reverse&text=3+1+%7C+1+3')).toEqual({ state, problems: [], rejected: {} });
  });

  it('reports bad link parameters and keeps the defaults for them', () => {
    const { state, problems, rejected } = stateFromHash('#heads=0&layers=two&colour=red&mode=sideways&scale=maybe');
    expect(state).toEqual(DEFAULT_STATE);
    expect(rejected.heads).toEqual({ raw: '0', error: 'Heads must be between 1 and 64' });
    expect(Object.keys(rejected)).toEqual(['heads', 'layers', 'mode', 'scale']);
    expect(problems).toEqual([
      'Heads must be between 1 and 64',
      'Layers must be a whole number',
      "unknown setting 'colour' in the link",
      "Attention: unknown choice 'sideways'",
      'Scale by 1/√d_k must be on or off',
    ]);
  });

  it('explains combinations that cannot work at the setting to fix', () => {
    // The engine's rules (declared once in core/src/config.cpp), at the setting each names, in the page's words
    // (the label d_model, not the API's dModel).
    expect(crossCheck({ ...DEFAULT_STATE, dModel: 64, heads: 3 }).heads).toBe(
      'heads (3) must divide d_model (64): d_k = d_model / heads must be a whole number',
    );
    expect(crossCheck({ ...DEFAULT_STATE, dModel: 8, heads: 8, preset: 'positional' }).preset).toMatch(
      /d_k = d_model \/ heads of at least 2/,
    );
    expect(crossCheck({ ...DEFAULT_STATE, dModel: 2, heads: 1, preset: 'positional' }).dModel).toMatch(
      /d_model of at least 4, got 2/,
    );
    expect(crossCheck(DEFAULT_STATE)).toEqual({});
  });

  it('turns text into a batch and a state into an engine config', () => {
    expect(splitLines('  the cat \n\n a dog\n')).toEqual(['the cat', 'a dog']);
    expect(modelConfig(DEFAULT_STATE)).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toEqual({
      dModel: 64,
      heads: 4,
      kvHeads: 0,
      layers: 2,
      window: 0,
      ffnDim: 0,
      seed: 1,
      preset: 'random',
      scale: true,
      residual: true,
      positional: true,
      positions: 'sinusoidal',
      activation: 'relu',
      ffn: 'standard',
      norm: 'post',
      normType: 'layernorm',
    });
    expect(parseSetting(settingByName('text')!, 'x'.repeat(5000))).toEqual({
      error: expect.stringMatching(/at most 4000/),
    });
  });
});

describe('a 0 that stands for something else', () => {
  const reverse = trainStateFromHash('#train&task=reverse&dModel=32&ffnDim=64').state;

  it('reads as what it resolves to in the state, not as 0', () => {
    const shown = (name: string) => shownValue(trainSettingByName(name)!, reverse[name], reverse);
    expect(reverse.kvHeads).toBe(0);
    expect(reverse.heads).toBe(4);
    expect(shown('kvHeads')).toBe('default (4)');
    expect(shown('headDim')).toBe('default (8)');
    expect(shown('queryPreAttnScalar')).toBe('default (8)');
    expect(shown('window')).toBe('none');
    expect(shown('evalLength')).toBe(`default (${reverse.length})`);
    expect(shown('dModel')).toBe('32');
    // a value set is shown as it is, and headDim set carries over to the scalar
    const set = { ...reverse, kvHeads: 2, headDim: 16 };
    expect(shownValue(trainSettingByName('kvHeads')!, 2, set)).toBe('2');
    expect(shownValue(trainSettingByName('queryPreAttnScalar')!, 0, set)).toBe('default (16)');
    // the playground's table: FFN width 0 is 4 × d_model, K/V heads 0 one per head
    expect(shownValue(settingByName('ffnDim')!, 0, DEFAULT_STATE)).toBe(`default (${4 * DEFAULT_STATE.dModel})`);
    expect(shownValue(settingByName('kvHeads')!, 0, DEFAULT_STATE)).toBe(`default (${DEFAULT_STATE.heads})`);
  });

  it('says "default" alone when the other settings give no value (heads not dividing d_model)', () => {
    expect(zeroDefaultText('headDim', 0, { dModel: 30, heads: 4 })).toBe('default');
    expect(zeroDefaultText('headDim', 3, { dModel: 30, heads: 4 })).toBeNull();
    expect(zeroDefaultText('seed', 0, {})).toBeNull();
    expect(zeroDefaultText('clipNorm', 0, {})).toBe('off');
    expect(zeroDefaultText('stopAt', 0, {})).toBe('never');
  });

  it('covers every setting whose declaration gives 0 a meaning', () => {
    const declared = [...SETTINGS, ...TRAIN_SETTINGS]
      .filter((s) => /\b0 =|\(0: /.test(s.help ?? ''))
      .map((s) => s.name);
    expect(declared.length).toBeGreaterThan(5);
    expect([...new Set(declared)].filter((name) => !(name in ZERO_MEANS))).toEqual([]);
  });
});
