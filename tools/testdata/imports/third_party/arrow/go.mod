module github.com/apache/arrow-go/v18

go 1.26
