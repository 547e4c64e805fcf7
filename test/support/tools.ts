/**
 * What the tests need from the machine and cannot provision themselves (the Kafka jars and the
 * Python tools they provision: `local-kafka/classpath.ts`, `python-tools.ts`): Java 17+ and Maven
 * for the local Apache Kafka, `redis-server`, Python 3 with its venv module, and Chromium for the
 * browser test. The runner checks them before anything else, in well under a second (lookups on
 * the PATH, Java's `release` file, one `python3 -c`), and stops at once with one message naming
 * every missing tool and the one line that installs them all.
 *
 * @example
 *   const missing = await missingTools({ files, kafkaProvided: false });
 *   if (missing.length > 0) console.log(missingToolsMessage(missing));
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { pythonIdentity } from './python-tools.ts';

/** Debian 12's packages of every tool below; the root README's quick start gives the same line. */
export const APT_INSTALL =
  'sudo apt-get install -y openjdk-17-jdk-headless maven redis-server python3 python3-venv chromium';

/** The Chromium the browser test drives (`CHROMIUM_PATH`, else Debian's). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Apache Kafka 4 runs on Java 17 and later. */
const JAVA_MAJOR = 17;
/** Schemathesis 4 needs Python 3.9 or later. */
const PYTHON_MINOR = 9;

export interface MissingTool {
  /** As a person names it: `Java 17`, `Maven`, `redis-server`, `Python 3`, `Chromium`. */
  readonly tool: string;
  readonly problem: string;
}

export interface ToolNeeds {
  /** The test files of the run (paths relative to the repository). */
  readonly files: readonly string[];
  /** Kafka comes from elsewhere (`KAFKA_BROKERS`, a Docker engine): Java and Maven are not needed. */
  readonly kafkaProvided: boolean;
}

/** The tools the run needs and the machine lacks, in the order of `APT_INSTALL`. */
export async function missingTools(needs: ToolNeeds, path = process.env.PATH ?? ''): Promise<MissingTool[]> {
  const checks: Promise<MissingTool | undefined>[] = [];
  if (!needs.kafkaProvided) {
    checks.push(checkJava(path));
    checks.push(
      Promise.resolve(onPath('mvn', path) ? undefined : { tool: 'Maven', problem: 'no mvn on the PATH' }),
    );
  }
  checks.push(
    Promise.resolve(
      onPath('redis-server', path) ? undefined : { tool: 'redis-server', problem: 'not on the PATH' },
    ),
  );
  checks.push(checkPython());
  if (needs.files.some(isBrowserTest) && !existsSync(CHROMIUM))
    checks.push(Promise.resolve({ tool: 'Chromium', problem: `no ${CHROMIUM}, for the browser test` }));
  return (await Promise.all(checks)).filter((m): m is MissingTool => m !== undefined);
}

/** The runner's message: each missing tool on its line, then the install line. */
export function missingToolsMessage(missing: readonly MissingTool[]): string {
  return [
    'The tests need tools this machine lacks:',
    ...missing.map((m) => `  ✘ ${m.tool}: ${m.problem}`),
    'Install them (Debian, Ubuntu) with:',
    `  ${APT_INSTALL}`,
  ].join('\n');
}

/** A browser test drives Chromium through playwright-core. */
function isBrowserTest(file: string): boolean {
  try {
    return /from ['"]playwright-core['"]/.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

function onPath(tool: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter((d) => d !== '')) {
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return join(dir, tool);
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

async function checkJava(path: string): Promise<MissingTool | undefined> {
  const java = onPath('java', path);
  if (!java) return { tool: `Java ${JAVA_MAJOR}`, problem: 'no java on the PATH' };
  const version = (await javaVersion(java)) ?? '';
  // `17.0.15`, or `1.8.0_402` for Java 8.
  const [first = 0, second = 0] = version.split(/[._-]/).map(Number);
  const major = first === 1 ? second : first;
  // A JDK, not only a JRE: the benchmark's Kafka Streams peer (and its test) is compiled.
  if (major >= JAVA_MAJOR)
    return onPath('javac', path)
      ? undefined
      : { tool: `Java ${JAVA_MAJOR}`, problem: 'no javac on the PATH (a JRE without its JDK)' };
  return {
    tool: `Java ${JAVA_MAJOR}`,
    problem: version ? `java is ${version}; Apache Kafka 4 needs ${JAVA_MAJOR}+` : 'java does not run',
  };
}

/** From the JDK's `release` file (no JVM start); else from `java -version`. */
async function javaVersion(java: string): Promise<string | undefined> {
  try {
    const release = readFileSync(join(dirname(realpathSync(java)), '..', 'release'), 'utf8');
    const version = /^JAVA_VERSION="([^"]+)"/m.exec(release)?.[1];
    if (version) return version;
  } catch {
    // No release file: ask the JVM.
  }
  try {
    const { stderr } = await promisify(execFile)(java, ['-version'], { timeout: 20_000 });
    return /version "([^"]+)"/.exec(stderr)?.[1];
  } catch {
    return undefined;
  }
}

async function checkPython(): Promise<MissingTool | undefined> {
  try {
    const { version } = await pythonIdentity();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major === 3 && minor >= PYTHON_MINOR) return undefined;
    return { tool: 'Python 3', problem: `python3 is ${version}; Schemathesis needs 3.${PYTHON_MINOR}+` };
  } catch (error) {
    return { tool: 'Python 3', problem: (error as Error).message };
  }
}
