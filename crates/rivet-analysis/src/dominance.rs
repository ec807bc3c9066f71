//! Post-dominator tree (Cooper–Harvey–Kennedy) over a method's CFG with a virtual exit node,
//! and the dominator tree from its entry.

use crate::cfg::{BlockId, Cfg};

/// Immediate post-dominators of every block. The virtual exit node is index `cfg.len()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostDominators {
    /// `ipdom[b]` is the immediate post-dominator of block b (the exit node for blocks that leave
    /// the method); None only for the exit node itself.
    ipdom: Vec<Option<u32>>,
    exit: u32,
}

impl PostDominators {
    /// Computes post-dominators over normal edges. Blocks from which no exit is reachable
    /// (infinite loops) get an artificial edge to the exit so that every block has a post-dominator.
    pub fn compute(cfg: &Cfg) -> PostDominators {
        let n = cfg.len();
        let exit = n as u32;
        // Successor lists in the forward graph, with the virtual exit.
        let mut succ: Vec<Vec<u32>> = cfg
            .blocks
            .iter()
            .map(|b| {
                let mut s: Vec<u32> = b.successors.iter().map(|x| x.0).collect();
                if b.exits {
                    s.push(exit);
                }
                s
            })
            .collect();
        succ.push(Vec::new());
        // Blocks that cannot reach the exit get an edge to it.
        let reaches = reaching_exit(&succ, exit);
        for b in 0..n {
            if !reaches[b] {
                succ[b].push(exit);
            }
        }
        // Reverse graph: predecessors in the forward graph are successors here.
        let mut rsucc: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for (b, ss) in succ.iter().enumerate() {
            for &s in ss {
                rsucc[s as usize].push(b as u32);
            }
        }
        let ipdom = dominators(&rsucc, &succ, exit);
        PostDominators { ipdom, exit }
    }

    /// The virtual exit node's index.
    pub fn exit(&self) -> u32 {
        self.exit
    }

    /// Immediate post-dominator of a block (a block index, or `exit()`).
    pub fn ipdom(&self, b: BlockId) -> Option<u32> {
        self.ipdom.get(b.0 as usize).copied().flatten()
    }

    /// Raw immediate post-dominator of a node index (block or exit).
    pub fn ipdom_of_node(&self, node: u32) -> Option<u32> {
        self.ipdom.get(node as usize).copied().flatten()
    }

    /// Does `a` post-dominate `b` (reflexive)?
    pub fn post_dominates(&self, a: u32, b: u32) -> bool {
        let mut cur = Some(b);
        while let Some(c) = cur {
            if c == a {
                return true;
            }
            cur = self.ipdom_of_node(c);
        }
        false
    }
}

/// Immediate dominators of every block from the method's entry (block 0), over normal and
/// exceptional edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dominators {
    /// None for the entry and for blocks unreachable from it.
    idom: Vec<Option<u32>>,
}

impl Dominators {
    pub fn compute(cfg: &Cfg) -> Dominators {
        if cfg.is_empty() {
            return Dominators { idom: Vec::new() };
        }
        let succ: Vec<Vec<u32>> = cfg
            .blocks
            .iter()
            .map(|b| {
                b.successors
                    .iter()
                    .chain(&b.handlers)
                    .map(|x| x.0)
                    .collect()
            })
            .collect();
        let pred: Vec<Vec<u32>> = cfg
            .predecessors()
            .into_iter()
            .map(|ps| ps.into_iter().map(|p| p.0).collect())
            .collect();
        Dominators {
            idom: dominators(&succ, &pred, 0),
        }
    }

    /// Does block `a` dominate block `b` (reflexive)? Only `b` itself dominates a block
    /// unreachable from the entry.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let mut cur = b.0;
        loop {
            if cur == a.0 {
                return true;
            }
            match self.idom.get(cur as usize).copied().flatten() {
                Some(p) => cur = p,
                None => return false,
            }
        }
    }
}

fn reaching_exit(succ: &[Vec<u32>], exit: u32) -> Vec<bool> {
    let n = succ.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s as usize].push(b as u32);
        }
    }
    let mut seen = vec![false; n];
    let mut stack = vec![exit];
    seen[exit as usize] = true;
    while let Some(x) = stack.pop() {
        for &p in &preds[x as usize] {
            if !seen[p as usize] {
                seen[p as usize] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// Iterative dominators of a graph given as successor lists (`succ`) and predecessor lists
/// (`pred`) from `root`. Returns the immediate dominator of every node; None for the root and
/// for nodes unreachable from it.
fn dominators(succ: &[Vec<u32>], pred: &[Vec<u32>], root: u32) -> Vec<Option<u32>> {
    let n = succ.len();
    // Reverse postorder by iterative DFS.
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
    visited[root as usize] = true;
    while let Some((node, i)) = stack.pop() {
        if let Some(&next) = succ[node as usize].get(i) {
            stack.push((node, i + 1));
            if !visited[next as usize] {
                visited[next as usize] = true;
                stack.push((next, 0));
            }
        } else {
            order.push(node);
        }
    }
    order.reverse();
    let mut rpo = vec![u32::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rpo[b as usize] = i as u32;
    }
    let mut idom: Vec<Option<u32>> = vec![None; n];
    idom[root as usize] = Some(root);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<u32> = None;
            for &p in &pred[b as usize] {
                if idom[p as usize].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, &rpo, p, cur),
                });
            }
            if new.is_some() && idom[b as usize] != new {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom[root as usize] = None;
    idom
}

fn intersect(idom: &[Option<u32>], rpo: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while rpo[a as usize] > rpo[b as usize] {
            a = idom[a as usize].unwrap_or(a);
        }
        while rpo[b as usize] > rpo[a as usize] {
            b = idom[b as usize].unwrap_or(b);
        }
    }
    a
}
