// Package docs checks the documentation against the code.
package docs
