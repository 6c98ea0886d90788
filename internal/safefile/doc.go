// Package safefile writes a command's output to the file the user named without replacing what
// is there by something else: a regular file is replaced atomically and keeps its mode, a
// symlink is followed to its target, a FIFO or a device (/dev/null, /dev/stdout, a shell's
// >(...)) is written in place, and a directory or a dangling symlink is refused.
//
// It also holds the one reader of every input (Read): a size limit for files, devices and pipes,
// and a read that returns when the command is interrupted.
package safefile
