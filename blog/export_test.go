package blog

// PostPageQuery returns the query of one page of a post list and its
// arguments, as listPosts runs it, for the tests of its plan.
func (b *Blog) PostPageQuery(public bool, status, categoryID, tagID string, limit, offset int) (string, []any) {
	f := postFilter{Public: public, Status: status, CategoryID: categoryID, TagID: tagID}
	return postPage(b.postWhere(f, b.now()), public, span{limit: limit, offset: offset})
}
