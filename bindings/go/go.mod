module libfsdpa.dev/fsdpa

go 1.19
