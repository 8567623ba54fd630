/**
 * The two fixed shell scripts of an ariel Job (docs/kubernetes.md). They are constants: every
 * value they use (remote, base, branch, run id) reaches them through environment variables, so
 * nothing from the plan is ever spliced into shell text. Both need `sh` and `git` in the image.
 *
 * - {@link CLONE_SCRIPT} (init container `clone`): credentials from the mounted Secret, a fresh
 *   repository in /work/src with `origin` = the remote, branch `ariel/<task>` started from the
 *   remote's branch of that name when a retry or a respawn already pushed it, else from the
 *   planned base commit; then the overlay files.
 * - {@link RUN_SCRIPT} (container `run`): the command with its argv as "$@"; SIGTERM (kill,
 *   deadline) is passed on to it; after it ended, work left uncommitted becomes a snapshot
 *   commit (a temporary index; the branch is not moved) and both are saved off the pod: pushed
 *   (the branch fast-forward, else under refs/ariel/runs/<run>/head; the snapshot under
 *   refs/ariel/snapshots/<task>/<run>), or written as a bundle to the claimed volume. The
 *   container exits with the command's status, or 75 when the command succeeded and saving failed.
 */

/** Where the work lives in the pod (an emptyDir shared by both containers). */
export const WORK_DIR = "/work";
export const SRC_DIR = "/work/src";
export const CREDENTIALS_DIR = "/ariel/credentials";
export const OVERLAY_DIR = "/ariel/overlay";
export const BUNDLE_DIR = "/ariel/bundle";

export const CLONE_SCRIPT: string = [
  "set -eu",
  `if [ -f ${CREDENTIALS_DIR}/git-credentials ]; then git config --global credential.helper "store --file=${CREDENTIALS_DIR}/git-credentials"; fi`,
  `if [ -f ${CREDENTIALS_DIR}/ssh-privatekey ]; then git config --global core.sshCommand "ssh -i ${CREDENTIALS_DIR}/ssh-privatekey -o IdentitiesOnly=yes -o UserKnownHostsFile=${CREDENTIALS_DIR}/known_hosts"; fi`,
  `git init -q "${SRC_DIR}"`,
  `cd "${SRC_DIR}"`,
  'git remote add origin "$ARIEL_K8S_REMOTE"',
  'if git ls-remote --exit-code --heads origin "refs/heads/$ARIEL_BRANCH" >/dev/null; then',
  '  git fetch -q origin "+refs/heads/$ARIEL_BRANCH:refs/remotes/origin/$ARIEL_BRANCH"',
  '  git checkout -q -b "$ARIEL_BRANCH" "refs/remotes/origin/$ARIEL_BRANCH"',
  "else",
  '  git fetch -q origin "$ARIEL_K8S_BASE" || git fetch -q origin',
  '  git checkout -q -b "$ARIEL_BRANCH" "$ARIEL_K8S_BASE"',
  "fi",
  `if [ -d ${OVERLAY_DIR} ]; then`,
  `  for f in ${OVERLAY_DIR}/* ${OVERLAY_DIR}/.[!.]*; do`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
  '    if [ -f "$f" ]; then cp -L "$f" "./${f##*/}"; fi',
  "  done",
  "fi",
].join("\n");

export const RUN_SCRIPT: string = [
  '"$@" &',
  "child=$!",
  "trap 'kill -TERM \"$child\" 2>/dev/null' TERM INT",
  'wait "$child"; status=$?',
  'while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done',
  "saved=0",
  `cd "${SRC_DIR}"`,
  "export GIT_INDEX_FILE=/tmp/ariel-index",
  'cp .git/index "$GIT_INDEX_FILE" 2>/dev/null || true',
  "git add -A && tree=$(git write-tree) || saved=1",
  "unset GIT_INDEX_FILE",
  'snap=""',
  'if [ "$saved" = 0 ] && [ "$tree" != "$(git rev-parse "HEAD^{tree}")" ]; then',
  '  snap=$(GIT_AUTHOR_NAME=ariel GIT_AUTHOR_EMAIL=ariel@localhost GIT_COMMITTER_NAME=ariel GIT_COMMITTER_EMAIL=ariel@localhost git commit-tree "$tree" -p HEAD -m "ariel: work left uncommitted by run $ARIEL_RUN_ID") || saved=1',
  "fi",
  'if [ "$ARIEL_K8S_SAVE" = bundle ]; then',
  '  if [ -n "$snap" ]; then git update-ref "refs/ariel/snapshots/$ARIEL_TASK/$ARIEL_RUN_ID" "$snap"; fi',
  `  git bundle create "${BUNDLE_DIR}/$ARIEL_RUN_ID.bundle" "refs/heads/$ARIEL_BRANCH" $(git for-each-ref --format='%(refname)' refs/ariel/) || saved=1`,
  "else",
  '  git push -q origin "refs/heads/$ARIEL_BRANCH:refs/heads/$ARIEL_BRANCH" || git push -q origin "refs/heads/$ARIEL_BRANCH:refs/ariel/runs/$ARIEL_RUN_ID/head" || saved=1',
  '  if [ -n "$snap" ]; then git push -q origin "$snap:refs/ariel/snapshots/$ARIEL_TASK/$ARIEL_RUN_ID" || saved=1; fi',
  "fi",
  'if [ "$saved" != 0 ]; then echo "ariel: the work of run $ARIEL_RUN_ID could not be saved off the pod" >&2; if [ "$status" = 0 ]; then status=75; fi; fi',
  'exit "$status"',
].join("\n");
