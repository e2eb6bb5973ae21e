/** Every cataloger, one per ecosystem, in the order their packages are listed. */
import type { Cataloger } from '../model.js';
import { apkCataloger } from './apk.js';
import { composerCataloger } from './composer.js';
import { dotnetCataloger } from './dotnet.js';
import { dpkgCataloger } from './dpkg.js';
import { gemCataloger } from './gem.js';
import { goBinaryCataloger } from './go-binary.js';
import { javaCataloger } from './java.js';
import { npmCataloger } from './npm.js';
import { pythonCataloger } from './python.js';
import { rpmCataloger } from './rpm.js';
import { rustBinaryCataloger, rustCargoLockCataloger } from './rust.js';

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
