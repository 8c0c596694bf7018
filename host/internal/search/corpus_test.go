package search

// realTools are tools as real MCP servers describe them (filesystem, git,
// github, slack, browser, databases, fetch, memory), the fixture of the
// ranking tests.
var realTools = []Doc{
	// The files plugin.
	{Name: "view_file", Server: "files", Description: "Read a file's contents with line numbers. For large files, pass offset and limit to read a range of lines.", Params: []Param{{"path", "Path of the file to read"}, {"offset", "First line to read, 1-based"}, {"limit", "Number of lines to read"}}},
	{Name: "write_file", Server: "files", Description: "Create a new file or completely overwrite an existing file with new content.", Params: []Param{{"path", "Path of the file to write"}, {"content", "Content to write to the file"}}},
	{Name: "edit_file", Server: "files", Description: "Make line-based edits to a text file. Each edit replaces exact text sequences with new content. Returns a git-style diff showing the changes made.", Params: []Param{{"path", ""}, {"edits", "List of edits, each an oldText and a newText"}, {"dryRun", "Preview changes using git-style diff format"}}},
	{Name: "list_directory", Server: "files", Description: "Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes.", Params: []Param{{"path", ""}}},
	{Name: "create_directory", Server: "files", Description: "Create a new directory or ensure a directory exists. Can create multiple nested directories in one operation.", Params: []Param{{"path", ""}}},
	{Name: "move_file", Server: "files", Description: "Move or rename files and directories. Can move files between directories and rename them in a single operation.", Params: []Param{{"source", ""}, {"destination", ""}}},
	{Name: "search_files", Server: "files", Description: "Recursively search for files and directories matching a glob pattern. Searches through all subdirectories from the starting path.", Params: []Param{{"path", ""}, {"pattern", "Glob pattern, like **/*.go"}, {"excludePatterns", ""}}},
	{Name: "grep", Server: "files", Description: "Search file contents for a regular expression and return the matching lines with their line numbers.", Params: []Param{{"pattern", "Regular expression"}, {"path", "Directory or file to search in"}, {"glob", "Only files matching this glob"}}},
	{Name: "delete_file", Server: "files", Description: "Delete a file or an empty directory.", Params: []Param{{"path", ""}}},
	{Name: "get_file_info", Server: "files", Description: "Retrieve detailed metadata about a file or directory: size, creation time, last modified time, permissions and type.", Params: []Param{{"path", ""}}},
	// The git plugin.
	{Name: "git_status", Server: "git", Description: "Shows the working tree status: staged, unstaged and untracked files.", Params: []Param{{"repo_path", "Path to the Git repository"}}},
	{Name: "git_diff", Server: "git", Description: "Shows differences between the working tree, the index and commits.", Params: []Param{{"repo_path", ""}, {"target", "Commit or branch to compare with"}}},
	{Name: "git_commit", Server: "git", Description: "Records changes to the repository: commits the staged changes with a message.", Params: []Param{{"repo_path", ""}, {"message", "Commit message"}}},
	{Name: "git_add", Server: "git", Description: "Adds file contents to the staging area.", Params: []Param{{"repo_path", ""}, {"files", "Files to stage"}}},
	{Name: "git_log", Server: "git", Description: "Shows the commit logs.", Params: []Param{{"repo_path", ""}, {"max_count", "Maximum number of commits to show"}}},
	{Name: "git_create_branch", Server: "git", Description: "Creates a new branch from an optional base branch.", Params: []Param{{"repo_path", ""}, {"branch_name", ""}, {"base_branch", ""}}},
	{Name: "git_checkout", Server: "git", Description: "Switches branches.", Params: []Param{{"repo_path", ""}, {"branch_name", ""}}},
	// An upstream GitHub server.
	{Name: "github__create_issue", Server: "github", Description: "Create a new issue in a GitHub repository.", Params: []Param{{"owner", "Repository owner"}, {"repo", "Repository name"}, {"title", "Issue title"}, {"body", "Issue body"}, {"labels", "Labels to apply"}}},
	{Name: "github__list_issues", Server: "github", Description: "List issues in a GitHub repository with filtering options.", Params: []Param{{"owner", ""}, {"repo", ""}, {"state", "open, closed or all"}, {"labels", ""}}},
	{Name: "github__create_pull_request", Server: "github", Description: "Create a new pull request in a GitHub repository.", Params: []Param{{"owner", ""}, {"repo", ""}, {"title", ""}, {"head", "The name of the branch where your changes are implemented"}, {"base", "The name of the branch you want the changes pulled into"}}},
	{Name: "github__merge_pull_request", Server: "github", Description: "Merge a pull request.", Params: []Param{{"owner", ""}, {"repo", ""}, {"pull_number", ""}, {"merge_method", "merge, squash or rebase"}}},
	{Name: "github__search_repositories", Server: "github", Description: "Search for GitHub repositories.", Params: []Param{{"query", "Search query"}, {"page", ""}}},
	{Name: "github__create_repository", Server: "github", Description: "Create a new GitHub repository in your account.", Params: []Param{{"name", "Repository name"}, {"private", "Whether the repository should be private"}}},
	{Name: "github__get_file_contents", Server: "github", Description: "Get the contents of a file or directory from a GitHub repository.", Params: []Param{{"owner", ""}, {"repo", ""}, {"path", ""}, {"branch", ""}}},
	{Name: "github__add_issue_comment", Server: "github", Description: "Add a comment to an existing issue.", Params: []Param{{"owner", ""}, {"repo", ""}, {"issue_number", ""}, {"body", "Comment text"}}},
	{Name: "github__fork_repository", Server: "github", Description: "Fork a GitHub repository to your account or specified organization.", Params: []Param{{"owner", ""}, {"repo", ""}, {"organization", ""}}},
	// An upstream Slack server.
	{Name: "slack__post_message", Server: "slack", Description: "Post a new message to a Slack channel.", Params: []Param{{"channel_id", "The ID of the channel to post to"}, {"text", "The message text to post"}}},
	{Name: "slack__reply_to_thread", Server: "slack", Description: "Reply to a specific message thread in Slack.", Params: []Param{{"channel_id", ""}, {"thread_ts", "The timestamp of the parent message"}, {"text", ""}}},
	{Name: "slack__list_channels", Server: "slack", Description: "List public channels in the workspace with pagination.", Params: []Param{{"limit", ""}, {"cursor", ""}}},
	{Name: "slack__get_users", Server: "slack", Description: "Get a list of all users in the workspace with their basic profile information.", Params: []Param{{"limit", ""}}},
	{Name: "slack__add_reaction", Server: "slack", Description: "Add a reaction emoji to a message.", Params: []Param{{"channel_id", ""}, {"timestamp", ""}, {"reaction", "The name of the emoji reaction (without ::)"}}},
	// An upstream browser server.
	{Name: "browser__navigate", Server: "browser", Description: "Navigate to a URL.", Params: []Param{{"url", "The URL to navigate to"}}},
	{Name: "browser__screenshot", Server: "browser", Description: "Take a screenshot of the current page or a specific element.", Params: []Param{{"name", "Name for the screenshot"}, {"selector", "CSS selector for element to screenshot"}}},
	{Name: "browser__click", Server: "browser", Description: "Click an element on the page.", Params: []Param{{"selector", "CSS selector for element to click"}}},
	{Name: "browser__fill", Server: "browser", Description: "Fill out an input field.", Params: []Param{{"selector", "CSS selector for input field"}, {"value", "Value to fill"}}},
	{Name: "browser__evaluate", Server: "browser", Description: "Execute JavaScript in the browser console.", Params: []Param{{"script", "JavaScript code to execute"}}},
	// Databases.
	{Name: "postgres__query", Server: "postgres", Description: "Run a read-only SQL query against the PostgreSQL database.", Params: []Param{{"sql", "The SQL query to run"}}},
	{Name: "sqlite__list_tables", Server: "sqlite", Description: "List all tables in the SQLite database.", Params: nil},
	{Name: "sqlite__describe_table", Server: "sqlite", Description: "Get the schema information for a specific table.", Params: []Param{{"table_name", "Name of the table to describe"}}},
	{Name: "sqlite__write_query", Server: "sqlite", Description: "Execute an INSERT, UPDATE, or DELETE query on the SQLite database.", Params: []Param{{"query", "SQL query to execute"}}},
	// Web and memory.
	{Name: "fetch__fetch", Server: "fetch", Description: "Fetches a URL from the internet and extracts its contents as markdown.", Params: []Param{{"url", "URL to fetch"}, {"max_length", "Maximum number of characters to return"}, {"raw", "Get the actual HTML content without simplification"}}},
	{Name: "web_search", Server: "web", Description: "Search the web with a search engine and return the top results with titles, URLs and snippets.", Params: []Param{{"query", "Search terms"}, {"count", "Number of results"}}},
	{Name: "remember", Server: "memory", Description: "Store a note in long-term memory, to recall in later sessions.", Params: []Param{{"content", "The note"}, {"tags", ""}}},
	{Name: "recall", Server: "memory", Description: "Search long-term memory (notes stored with remember) by full-text search.", Params: []Param{{"query", ""}}},
	{Name: "run_command", Server: "shell", Description: "Run a shell command in the project folder and return its output and exit code.", Params: []Param{{"command", "The command line, run with sh -c"}, {"timeout", "Seconds before the command is killed"}}},
}

// rankingQueries are what a model asks search_capabilities, and a tool
// that must be among the first three for each. Most are worded unlike the
// tool's description.
var rankingQueries = []struct{ query, want string }{
	{"read a file", "view_file"},
	{"show me what is inside config.yaml", "view_file"},
	{"open a ticket on github", "github__create_issue"},
	{"report a bug in the repo", "github__create_issue"},
	{"what folders and files are there", "list_directory"},
	{"make a new folder", "create_directory"},
	{"rename a file", "move_file"},
	{"erase a file", "delete_file"},
	{"find text in source code", "grep"},
	{"modify some lines in a document", "edit_file"},
	{"save text to disk", "write_file"},
	{"open a PR", "github__create_pull_request"},
	{"merge PR", "github__merge_pull_request"},
	{"send a slack message", "slack__post_message"},
	{"answer in a thread", "slack__reply_to_thread"},
	{"go to a website", "browser__navigate"},
	{"take a picture of the page", "browser__screenshot"},
	{"press a button on the page", "browser__click"},
	{"type into a form field", "browser__fill"},
	{"run sql against postgres", "postgres__query"},
	{"which tables are in the db", "sqlite__list_tables"},
	{"download a web page as markdown", "fetch__fetch"},
	{"search the internet", "web_search"},
	{"status of my repo", "git_status"},
	{"unstaged files", "git_status"},
	{"commit history", "git_log"},
	{"switch to another branch", "git_checkout"},
	{"stage files", "git_add"},
	{"execute a shell command", "run_command"},
	{"save a note for later", "remember"},
	{"file size and modification date", "get_file_info"},
	{"comment on an issue", "github__add_issue_comment"},
	{"who is in the slack workspace", "slack__get_users"},
}
