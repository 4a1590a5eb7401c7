//! The top-level block structure of the Markdown, from pulldown-cmark.
//!
//! The PRD grammar is line-oriented inside blocks (metadata lines, criterion
//! lines), so the parser uses pulldown-cmark for what Markdown decides (where
//! a paragraph, list item, code fence or heading begins and ends) and reads
//! the raw source lines of each block itself.

use pulldown_cmark::{Event, Options, Parser, Tag};

/// The Markdown options every pass uses (also the benchmark's floor).
pub const OPTIONS: Options = Options::ENABLE_TASKLISTS;

/// A top-level block and its byte range.
#[derive(Debug)]
pub(crate) struct Block {
    pub kind: BlockKind,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug)]
pub(crate) enum BlockKind {
    /// `#`…`######`, with the level.
    Heading(u8),
    Paragraph,
    List {
        ordered: bool,
        items: Vec<Item>,
    },
    /// An HTML block (comments and the like).
    Html,
    /// A code block, block quote, thematic break, table …
    Other,
}

/// One item of a top-level list.
#[derive(Debug)]
pub(crate) struct Item {
    pub start: usize,
    pub end: usize,
    /// `Some(checked)` when the item starts with a task-list marker.
    pub task: Option<bool>,
    /// True when the item contains a nested list.
    pub nested: bool,
    /// True once any content has been seen, so only a leading marker counts.
    seen_content: bool,
}

/// Splits `source` into its top-level blocks.
pub(crate) fn top_level_blocks(source: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(source, OPTIONS).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::Heading { level, .. } => BlockKind::Heading(level as u8),
                        Tag::Paragraph => BlockKind::Paragraph,
                        Tag::List(first) => BlockKind::List {
                            ordered: first.is_some(),
                            items: Vec::new(),
                        },
                        Tag::HtmlBlock => BlockKind::Html,
                        _ => BlockKind::Other,
                    };
                    blocks.push(Block {
                        kind,
                        start: range.start,
                        end: range.end,
                    });
                } else if let Some(item_list) = current_items(&mut blocks) {
                    match tag {
                        Tag::Item if depth == 1 => item_list.push(Item {
                            start: range.start,
                            end: range.end,
                            task: None,
                            nested: false,
                            seen_content: false,
                        }),
                        Tag::List(_) => {
                            if let Some(item) = item_list.last_mut() {
                                item.nested = true;
                                item.seen_content = true;
                            }
                        }
                        Tag::Paragraph => {}
                        _ => {
                            if let Some(item) = item_list.last_mut() {
                                item.seen_content = true;
                            }
                        }
                    }
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::TaskListMarker(checked) => {
                if let Some(item) = current_items(&mut blocks).and_then(|items| items.last_mut()) {
                    if !item.seen_content && item.task.is_none() {
                        item.task = Some(checked);
                    }
                    item.seen_content = true;
                }
            }
            _ if depth == 0 => blocks.push(Block {
                kind: BlockKind::Other,
                start: range.start,
                end: range.end,
            }),
            _ => {
                if let Some(item) = current_items(&mut blocks).and_then(|items| items.last_mut()) {
                    item.seen_content = true;
                }
            }
        }
    }
    blocks
}

fn current_items(blocks: &mut [Block]) -> Option<&mut Vec<Item>> {
    match blocks.last_mut() {
        Some(Block {
            kind: BlockKind::List { items, .. },
            ..
        }) => Some(items),
        _ => None,
    }
}
