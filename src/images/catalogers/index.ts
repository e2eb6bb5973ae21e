/** Every cataloger, one per ecosystem, in the order their packages are listed. */
import type { Cataloger } from '../model.js';
import { apkCataloger } from '../../ecosystems/apk/cataloger.js';
import { composerCataloger } from '../../ecosystems/composer/cataloger.js';
import { dotnetCataloger } from '../../ecosystems/nuget/cataloger.js';
import { dpkgCataloger } from '../../ecosystems/dpkg/cataloger.js';
import { gemCataloger } from '../../ecosystems/gem/cataloger.js';
import { goBinaryCataloger } from '../../ecosystems/go/cataloger.js';
import { javaCataloger } from '../../ecosystems/java/cataloger.js';
import { npmCataloger } from '../../ecosystems/npm/cataloger.js';
import { pythonCataloger } from '../../ecosystems/python/cataloger.js';
import { rpmCataloger } from '../../ecosystems/rpm/cataloger.js';
import { rustBinaryCataloger, rustCargoLockCataloger } from '../../ecosystems/rust/cataloger.js';

export const ALL_CATALOGERS: readonly Cataloger[] = [
  dpkgCataloger,
  apkCataloger,
  rpmCataloger,
  npmCataloger,
  pythonCataloger,
  gemCataloger,
  javaCataloger,
  goBinaryCataloger,
  rustCargoLockCataloger,
  rustBinaryCataloger,
  dotnetCataloger,
  composerCataloger,
];
